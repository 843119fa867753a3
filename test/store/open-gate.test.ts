// The gate between LMDB opens and commits of numintel's processes (open-gate.ts). Another process
// is played by marker files made by hand, with the pid of a child that runs (or has ended), and
// removed by a child a moment later: this process's own waits are synchronous.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { thisProcess as processes } from '../../src/cli/process-table.js';
import { OpenGate } from '../../src/store/open-gate.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

/** A process that runs until the test ends: the pid of "another numintel". */
function runningPid(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

/** A pid that ran and has ended. */
function endedPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid as number;
}

/** Another process's marker of `kind` for the cache file in `dir`. */
function foreignMarker(dir: string, kind: 'open' | 'commit', pid: number, host = hostname()): string {
  const path = join(dir, `answers.mdb-${kind}+${host}+${pid}+other+1`);
  writeFileSync(path, '');
  return path;
}

/** Removes `path` from a child process after `ms`, while this one waits synchronously. */
function removeLater(path: string, ms: number): void {
  const child = spawn(process.execPath, ['-e', `setTimeout(() => require('fs').rmSync(${JSON.stringify(path)}), ${ms})`], { stdio: 'ignore' });
  children.push(child);
}

/** A write through `gate` that settles when the test says so. */
function heldWrite(gate: OpenGate): { write: Promise<void>; settle: () => void } {
  let settle = () => {};
  const write = gate.committingAsync(() => new Promise<void>((resolve) => (settle = resolve)));
  return { write, settle };
}

const markers = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('answers.mdb-'));

describe('the gate between opens and commits', () => {
  it('an open waits while another process commits, and goes on once it is done', async () => {
    const dir = await tempDir();
    const commit = foreignMarker(dir, 'commit', runningPid());
    removeLater(commit, 300);
    const gate = new OpenGate(join(dir, 'answers.mdb'), processes);
    const seen = gate.opening(() => ({ committing: existsSync(commit), mine: markers(dir).filter((m) => m.includes('-open+')).length }));
    expect(seen).toEqual({ committing: false, mine: 1 });
    expect(markers(dir)).toEqual([]);
  });

  it('a commit waits while another process opens', async () => {
    const dir = await tempDir();
    const open = foreignMarker(dir, 'open', runningPid());
    removeLater(open, 300);
    const gate = new OpenGate(join(dir, 'answers.mdb'), processes);
    expect(gate.committing(() => existsSync(open))).toBe(false);
    expect(markers(dir)).toEqual([]);
  });

  it('a commit marker is there while a write is under way, and gone when it settles', async () => {
    const dir = await tempDir();
    const gate = new OpenGate(join(dir, 'answers.mdb'), processes);
    const { write, settle } = heldWrite(gate);
    const during = markers(dir);
    settle();
    await write;
    expect(during).toHaveLength(1);
    expect(during[0]).toMatch(/^answers\.mdb-commit\+/);
    expect(markers(dir)).toEqual([]);
  });

  it('commits following one another let a waiting opener in: a new one waits for those under way to settle', async () => {
    const dir = await tempDir();
    const gate = new OpenGate(join(dir, 'answers.mdb'), processes);
    const { write: first, settle: settleFirst } = heldWrite(gate);
    const open = foreignMarker(dir, 'open', runningPid());
    let secondBegan = false;
    const second = gate.committingAsync(async () => {
      secondBegan = true;
      return existsSync(open);
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(secondBegan).toBe(false);
    // The first settles, the marker goes, the opener opens (its marker removed a moment later).
    removeLater(open, 200);
    settleFirst();
    await first;
    expect(await second).toBe(false);
    expect(markers(dir)).toEqual([]);
  });

  it('a sync commit while this store’s marker stands goes on: an opener that marked since waits for it', async () => {
    const dir = await tempDir();
    const gate = new OpenGate(join(dir, 'answers.mdb'), processes);
    const { write, settle } = heldWrite(gate);
    const open = foreignMarker(dir, 'open', runningPid());
    expect(gate.committing(() => existsSync(open))).toBe(true);
    settle();
    await write;
  });

  it('a marker whose process has ended is removed at once; one untouched for ten seconds, of any host, too', async () => {
    const dir = await tempDir();
    const ended = foreignMarker(dir, 'commit', endedPid());
    const old = foreignMarker(dir, 'commit', runningPid(), 'another-host');
    utimesSync(old, new Date(Date.now() - 20_000), new Date(Date.now() - 20_000));
    const gate = new OpenGate(join(dir, 'answers.mdb'), processes);
    const began = Date.now();
    expect(gate.opening(() => [existsSync(ended), existsSync(old)])).toEqual([false, false]);
    // Not a speed figure: the bound is half the time a live-looking marker would hold it up.
    expect(Date.now() - began).toBeLessThan(5_000);
  });

  it('a fresh marker of another host is waited for: its pid cannot be looked up here', async () => {
    const dir = await tempDir();
    const commit = foreignMarker(dir, 'commit', endedPid(), 'another-host');
    removeLater(commit, 300);
    const gate = new OpenGate(join(dir, 'answers.mdb'), processes);
    expect(gate.opening(() => existsSync(commit))).toBe(false);
  });

  it('this process’s own stores do not wait for each other', async () => {
    const dir = await tempDir();
    const a = new OpenGate(join(dir, 'answers.mdb'), processes);
    const b = new OpenGate(join(dir, 'answers.mdb'));
    const { write, settle } = heldWrite(a);
    // (A wait here would last MAX_WAIT_MS: the write cannot settle while this thread waits.)
    const began = Date.now();
    expect(b.opening(() => markers(dir).length)).toBe(2);
    expect(Date.now() - began).toBeLessThan(5_000);
    settle();
    await write;
  });

  it('where no marker can be made, opens and commits go on', async () => {
    const gate = new OpenGate(join('/nonexistent-numintel-dir', 'answers.mdb'), processes);
    expect(gate.opening(() => 'opened')).toBe('opened');
    expect(gate.committing(() => 'committed')).toBe('committed');
    expect(await gate.committingAsync(async () => 'written')).toBe('written');
  });
});
