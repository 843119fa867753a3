// Several numintel processes on one cache: two writing and reading at once, and a writer killed
// with SIGKILL mid-write. The children run the built store (npm run build), as the CLI does.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { thisProcess } from '../../src/cli/process-table.js';
import { LmdbAnswerStore } from '../../src/store/lmdb-store.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();
const CHILD = join(import.meta.dirname, 'fixtures', 'cache-child.mjs');

function child(args: string[]) {
  // A clean environment, as the CLI's runs get (test/support/cli.ts): nothing of this shell's,
  // such as a CA bundle for Node to load at every start.
  const proc = spawn(process.execPath, [CHILD, ...args], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('close', (code, signal) => resolve({ code, signal })));
  return { proc, done, out: () => out, err: () => err };
}

async function openStore(dir: string) {
  const warnings: string[] = [];
  const store = await LmdbAnswerStore.open({ dir, service: 'https://api.test', clock: systemClock, warn: (m) => warnings.push(m), processes: thisProcess });
  return { store, warnings };
}

describe('one cache, several processes', () => {
  it('two processes write and read at the same time, and each sees the other’s answers', async () => {
    const dir = await tempDir();
    const n = 5000;
    const a = child(['write-read', dir, 'lrn', String(n), 'cnam']);
    const b = child(['write-read', dir, 'cnam', String(n), 'lrn']);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect({ ra, err: a.err() }).toEqual({ ra: { code: 0, signal: null }, err: '' });
    expect({ rb, err: b.err() }).toEqual({ rb: { code: 0, signal: null }, err: '' });
    expect(JSON.parse(a.out())).toMatchObject({ own: n, seen: n, warnings: [] });
    expect(JSON.parse(b.out())).toMatchObject({ own: n, seen: n, warnings: [] });

    const { store, warnings } = await openStore(dir);
    const stats = await store.stats();
    expect(stats.kinds.lrn.entries).toBe(n);
    expect(stats.kinds.cnam.entries).toBe(n);
    expect(store.slot('cnam', {}).get('12015554999')?.result).toEqual({ kind: 'cnam', i: 4999, name: 'caller 4999', flag: false, nested: { n: 4999, none: null } });
    await store.close();
    expect(warnings).toEqual([]);
  }, 60_000);

  // A script starting numintel once per new number beside other runs opening the cache, each a
  // process of its own as numintel's are: every open lands between other processes' commits
  // (open-gate.ts), and each run's one commit is kept.
  it('runs of one new number each, while other processes open and close the cache: none is lost', async () => {
    const dir = await tempDir();
    const n = 20;
    const ok = { done: { code: 0, signal: null }, out: '{"warnings":[]}\n', err: '' };
    const result = (c: ReturnType<typeof child>) => c.done.then((done) => ({ done, out: c.out(), err: c.err() }));
    // A script: its numbers one run after another. (One process at a time on each side: the
    // timing-sensitive pacing tests share the machine.)
    let finished = false;
    const runs = (async () => {
      const outcomes = [];
      for (let i = 0; i < n; i++) outcomes.push(await result(child(['one-number', dir, 'lrn', String(i)])));
      return outcomes;
    })().finally(() => (finished = true));
    let opens = 0;
    // Bounded: until the script is done, at most 100 opening processes.
    while (!finished && opens < 100) {
      expect(await result(child(['open-close', dir]))).toEqual(ok);
      opens += 1;
    }
    for (const outcome of await runs) expect(outcome).toEqual(ok);
    expect(opens).toBeGreaterThan(2);
    const reader = child(['count-lost', dir, 'lrn', String(n)]);
    await reader.done;
    expect({ lost: reader.out(), err: reader.err() }).toEqual({ lost: '[]\n', err: '' });
  }, 120_000);

  // lmdb-js's LMDB forgets a commit that lands while another process opens the file (open-gate.ts):
  // without the gate, a batch of 1,024 answers was lost in about half of such runs (8 opens each).
  it('a process committing batch after batch while others open the cache, to read and to write: nothing it committed is lost', async () => {
    const dir = await tempDir();
    const n = 250_000;
    const writer = child(['write-fast', dir, 'lrn', String(n)]);
    let running = true;
    void writer.done.then(() => (running = false));
    // Bounded: until the writer is done, at most 60 opening processes, one at a time.
    let opens = 0;
    while (running && opens < 60) {
      const opener = child([opens % 2 === 0 ? 'read' : 'open-close', dir]);
      expect({ done: await opener.done, err: opener.err() }).toEqual({ done: { code: 0, signal: null }, err: '' });
      opens += 1;
    }
    expect({ done: await writer.done, out: writer.out(), err: writer.err() }).toEqual({ done: { code: 0, signal: null }, out: '{"warnings":[]}\n', err: '' });
    expect(opens).toBeGreaterThan(1);
    const reader = child(['count-lost', dir, 'lrn', String(n)]);
    await reader.done;
    expect({ lost: reader.out().slice(0, 200), err: reader.err() }).toEqual({ lost: '[]\n', err: '' });
  }, 60_000);

  it('a writer killed with SIGKILL leaves the cache usable, with what it committed', async () => {
    const dir = await tempDir();
    const writer = child(['write-forever', dir, 'trust', '2000']);
    // Bounded: the child says "ready" once 2000 answers are committed, then writes until killed.
    for (let i = 0; i < 300 && !writer.out().includes('ready'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(writer.out()).toContain('ready');
    await new Promise((r) => setTimeout(r, 300));
    writer.proc.kill('SIGKILL');
    expect((await writer.done).signal).toBe('SIGKILL');

    const { store, warnings } = await openStore(dir);
    for (const i of [0, 1, 999, 1999]) expect(store.slot('trust', {}).get(String(12015550000 + i))?.result.i).toBe(i);
    const stats = await store.stats();
    expect(stats.kinds.trust.entries).toBeGreaterThanOrEqual(2000);
    store.slot('lrn', {}).put('12015550123', { lrn: '12015550000' }, Date.now());
    await store.close();
    const again = await openStore(dir);
    expect(again.store.slot('lrn', {}).get('12015550123')?.result).toEqual({ lrn: '12015550000' });
    await again.store.close();
    expect([...warnings, ...again.warnings]).toEqual([]);
  }, 60_000);

  it('a lookup this process began, which it reads nothing of: a writer there, even one killed with SIGKILL, is read a second later', async () => {
    const dir = await tempDir();
    const { store, warnings } = await openStore(dir);
    const slot = store.slot('trust', {});
    // This process creates the lookup in the file; then misses are not read from it (see unread).
    slot.put('12019990000', { mine: true }, Date.now());
    expect(slot.get('12015550000')).toBeUndefined();
    const writer = child(['write-forever', dir, 'trust', '2000']);
    for (let i = 0; i < 300 && !writer.out().includes('ready'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(writer.out()).toContain('ready');
    writer.proc.kill('SIGKILL');
    expect((await writer.done).signal).toBe('SIGKILL');
    // Bounded: looked for until its answers are read (the mark is looked for once a second), at most 5 s.
    const seen = () => [0, 1, 999, 1999].filter((i) => slot.get(String(12015550000 + i))?.result.i === i).length;
    for (let i = 0; i < 50 && seen() < 4; i++) await new Promise((r) => setTimeout(r, 100));
    expect(seen()).toBe(4);
    expect(slot.get('12019990000')?.result).toEqual({ mine: true });
    await store.close();
    expect(warnings).toEqual([]);
  }, 60_000);

  it('a process that leaves with writes begun and not committed exits at once, and holds up no other', async () => {
    const dir = await tempDir();
    // lmdb ran a transaction's callback on the main thread while its write thread held the write
    // lock: a process.exit then waited for ever (joining that thread), and so did every other
    // process on the cache. Bounded: a child that hangs is killed, and the test fails.
    const leaver = child(['write-exit', dir, 'lrn', '5000']);
    const killer = setTimeout(() => leaver.proc.kill('SIGKILL'), 15_000);
    const left = await leaver.done;
    clearTimeout(killer);
    expect({ left, err: leaver.err() }).toEqual({ left: { code: 0, signal: null }, err: '' });
    const next = child(['write-read', dir, 'cnam', '100', 'cnam']);
    const nextKiller = setTimeout(() => next.proc.kill('SIGKILL'), 15_000);
    const ran = await next.done;
    clearTimeout(nextKiller);
    expect({ ran, err: next.err() }).toEqual({ ran: { code: 0, signal: null }, err: '' });
    expect(JSON.parse(next.out())).toMatchObject({ own: 100, seen: 100 });
  }, 60_000);
});
