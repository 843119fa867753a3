// Keeps numintel's processes from opening the LMDB file while another commits to it. lmdb-js
// (3.5.6, the newest) builds its own LMDB, whose mdb_env_open2 sets the lock file's "last
// transaction" to the meta page it read at the start of the open, without upstream LMDB's guard
// (ITS#9496: `prev &&`). A commit by another process between that read and that write is then
// forgotten: the next write transaction, of any process, starts from the one before and overwrites
// it. Measured: two processes opening a new cache at once lost one's first commit (its lookup's
// prefix id, so both lookups got id 1: 15% of runs of the cache-processes test); a process
// committing in a loop lost ~1,500 commits at a time, in 2 of ~40 opens by other processes beside
// it, read-only opens included. Opens do not commit (checked), so openers need not exclude each other.
//
// Marker files beside the cache file: `<file>-commit+<host>+<pid>+<id>` while a process has write
// transactions under way, `<file>-open+…` while it opens. An opener marks, then waits until no other
// process's commit marker is left; a committer marks, then, if an opener is marked, takes its mark
// back and waits until no opener is. Of two processes marking at once, at least one sees the other
// (each looks after it marked), so no commit lands in an open. A committer whose marker stays (its
// commits overlap) may commit on, as an opener that marked after it waits for it; but it lets its
// commits under way settle first, so that the opener's wait ends.
//
// A marker whose process is gone (killed mid-commit) is removed: at once when its host is this one
// and its pid is not running; else when it has not been touched for STALE_MS (its holder refreshes
// it while it lives). Nothing here ever fails an open or a commit: a marker that cannot be made
// (a read-only directory) leaves the gate open, and no wait lasts longer than MAX_WAIT_MS.
import { closeSync, openSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { tempSuffix } from '../core/temp-name.js';

/** This process and a test of whether another is running: what tells a marker left by a killed process. */
export interface ProcessTable {
  readonly self: number;
  alive(pid: number): boolean;
}

/** A marker untouched this long belongs to no running process. */
const STALE_MS = 10_000;
/** How often a holder touches its marker. */
const REFRESH_MS = 1_000;
/** The longest a process waits at the gate: past it, it goes on (an opener starved by one process's back-to-back commits). */
const MAX_WAIT_MS = 30_000;
/** Between two looks while waiting. */
const POLL_MS = 1;

type Kind = 'open' | 'commit';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Marks this process's markers (its pid may be unknown): an open here finds the file already open in lmdb-js and opens nothing, so this process's commits never wait for its opens, nor its opens for its commits. */
const THIS_PROCESS = tempSuffix();

export class OpenGate {
  private readonly dir: string;
  private readonly prefix: string;
  private readonly host = hostname().replaceAll('+', '-');
  /** The markers' names after their kind: "<host>+<pid, 0 when unknown>+<this process>+<this store>". */
  private readonly me: string;
  /** Write transactions under way in this store; its commit marker is there while any is. */
  private commits = 0;
  private commitMarker: string | undefined;
  private toucher: NodeJS.Timeout | undefined;
  /** Commits waiting for those under way to settle (see committingAsync). */
  private onDrained: (() => void)[] = [];

  constructor(
    cacheFile: string,
    private readonly processes?: ProcessTable,
  ) {
    this.dir = dirname(cacheFile);
    this.prefix = basename(cacheFile);
    this.me = `${this.host}+${processes?.self ?? 0}+${THIS_PROCESS}+${tempSuffix()}`;
  }

  /** Runs `open` (LMDB opening the file) while no other process commits. */
  opening<T>(open: () => T): T {
    const marker = this.mark('open');
    try {
      if (marker) this.waitWhile('commit', marker);
      return open();
    } finally {
      if (marker) rmSync(marker, { force: true });
    }
  }

  /** Runs `commit` (a write transaction) where no open can overlap it. */
  committing<T>(commit: () => T): T {
    this.enter();
    try {
      return commit();
    } finally {
      this.leave();
    }
  }

  /** committing() for a write handed to lmdb's write thread: the gate stays shut until it settles. */
  committingAsync<T>(commit: () => Promise<T>): Promise<T> {
    // An opener waits for this store's marker to go, which commits following one another without a
    // gap (a fast cold run) would keep: a new one waits for those under way to settle first.
    if (this.commits > 0 && this.others('open')) return this.drained().then(() => this.committingAsync(commit));
    this.enter();
    let write: Promise<T>;
    try {
      write = commit();
    } catch (err) {
      this.leave();
      throw err;
    }
    return write.finally(() => this.leave());
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => this.onDrained.push(resolve));
  }

  private enter(): void {
    if (this.commits++ > 0) return;
    for (;;) {
      this.commitMarker = this.mark('commit');
      if (!this.commitMarker || !this.others('open')) break;
      // An opener may have looked before this marker was made: wait until it is done.
      rmSync(this.commitMarker, { force: true });
      this.commitMarker = undefined;
      if (!this.waitWhile('open')) break;
    }
    // Touched while held, so that no other process takes it for a dead one's.
    const marker = this.commitMarker;
    if (marker) this.toucher = setInterval(() => touch(marker), REFRESH_MS).unref();
  }

  private leave(): void {
    if (--this.commits > 0) return;
    clearInterval(this.toucher);
    this.toucher = undefined;
    if (this.commitMarker) rmSync(this.commitMarker, { force: true });
    this.commitMarker = undefined;
    const waiting = this.onDrained;
    this.onDrained = [];
    for (const resume of waiting) resume();
  }

  /** Makes this store's marker of `kind`; undefined when it cannot be made. */
  private mark(kind: Kind): string | undefined {
    const path = join(this.dir, `${this.prefix}-${kind}+${this.me}`);
    try {
      closeSync(openSync(path, 'w', 0o600));
      return path;
    } catch {
      return undefined;
    }
  }

  /**
   * Waits while another process has a marker of `kind`, touching `own` meanwhile; false when it
   * gave up (MAX_WAIT_MS).
   */
  private waitWhile(kind: Kind, own?: string): boolean {
    const start = Date.now();
    let touched = start;
    while (this.others(kind)) {
      const now = Date.now();
      if (now - start >= MAX_WAIT_MS) return false;
      if (own && now - touched >= REFRESH_MS) {
        touched = now;
        touch(own);
      }
      Atomics.wait(sleeper, 0, 0, POLL_MS);
    }
    return true;
  }

  /** Whether another process holds a live marker of `kind`; stale ones are removed on the way. */
  private others(kind: Kind): boolean {
    const head = `${this.prefix}-${kind}+`;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return false;
    }
    for (const name of names) {
      if (!name.startsWith(head)) continue;
      const [host = '', pid, process] = name.slice(head.length).split('+');
      if (process !== THIS_PROCESS && this.live(join(this.dir, name), host, Number(pid))) return true;
    }
    return false;
  }

  private live(path: string, host: string, pid: number): boolean {
    let dead = this.processes !== undefined && host === this.host && pid > 0 && !this.processes.alive(pid);
    if (!dead) {
      try {
        dead = Date.now() - statSync(path).mtimeMs > STALE_MS;
      } catch {
        return false;
      }
    }
    if (dead) rmSync(path, { force: true });
    return !dead;
  }
}

function touch(path: string): void {
  const now = Date.now() / 1000;
  try {
    utimesSync(path, now, now);
  } catch {
    // removed as stale after a long stall of this process: its next use marks again
  }
}
