// The cache on a disk that is full, for real: a small tmpfs mounted in a mount namespace of the
// test's own (`unshare -rm`: no root needed where user namespaces are allowed, nothing left
// mounted). Written in place through its map (Linux), a page the full disk cannot hold would end
// the process with SIGBUS, not an error; the store keeps a margin of free space instead and warns.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, requireBuiltCli, runShell } from '../support/cli.js';
import { numbersIn } from '../support/numbers.js';
import { sandbox, sandboxEnv } from '../support/sandbox.js';
import { tempDir, writeList } from '../support/tmp.js';

requireBuiltCli();

const CAN_MOUNT = spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o size=1m tmpfs "${tempDir()}"`], { stdio: 'ignore' }).status === 0;

describe('the lookup cache on a full disk', () => {
  it.skipIf(!CAN_MOUNT)('a run with new answers on a cache whose disk filled up: every row, exit 0, one warning, no SIGBUS', async () => {
    const sb = await sandbox({ limits: { lrn: 0, cnam: 0, trust: 0 } });
    const dir = tempDir();
    const disk = join(dir, 'disk');
    mkdirSync(disk);
    const earlier = writeList(dir, 'earlier.txt', numbersIn('201', 500));
    const count = 8_000;
    const list = writeList(dir, 'numbers.txt', [...numbersIn('973', count / 2), ...numbersIn('732', count / 2)]);
    const run = (input: string) => `"$NUMINTEL_NODE" "$NUMINTEL_CLI" lrn -i "${input}" -f jsonl --no-progress -q --rate 0 --concurrency 32`;
    // A disk of 72 MB; a first run makes the cache (about 100 KB in use), a file takes 71 MB of the
    // rest, and the run under test has 8,000 new answers (about 1 MB) to store in the 0.3 MB left.
    const script = [
      `mount -t tmpfs -o size=72m tmpfs "${disk}"`,
      `${run(earlier)} > /dev/null`,
      `head -c 71M /dev/zero > "${disk}/filler" 2> /dev/null`,
      `exec ${run(list)}`,
    ].join(' && ');
    const r = await runShell(`unshare -rm sh -c '${script}'`, {
      env: sandboxEnv(sb, { NUMINTEL_CACHE_DIR: join(disk, 'cache') }),
      timeoutMs: 60_000,
    });
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    const records = jsonl(r.stdout);
    expect(records).toHaveLength(count);
    expect(records.every((x) => x.ok === true)).toBe(true);
    expect(r.stderr).toBe('numintel: warning: the lookup cache cannot be used (ENOSPC: less than 64 MB is free on its disk); going on without it (the disk is full)\n');
  }, 90_000);
});
