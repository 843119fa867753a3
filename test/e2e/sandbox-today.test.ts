// The sandbox's day: `numintel sandbox --today`, the in-process sandbox of `--sandbox` (`--today`,
// else the run's clock) and the library's startSandbox({ today }) all date their answers back from the same day,
// so one number gets the same dates from each; single and bulk endpoints agree.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { lrnResult, sandboxDay, subject, trustResult } from '../../src/sandbox/data.js';
import { seedValue } from '../../src/sandbox/hash.js';
import { requireBuiltCli, runCli, startCli } from '../support/cli.js';
import { runInProcess } from '../support/world.js';
import { lrnBulk, trust } from '../sandbox/helpers.js';
import { sandbox } from '../support/sandbox.js';

const TODAY = '2026-03-15';
const N = '12125550123';
const expected = () => {
  const s = subject(N, seedValue(0), sandboxDay(TODAY, 0));
  return { activated: lrnResult(s, false, false).lrn_activated_at, updated: trustResult(s).last_updated };
};

describe('the sandbox day', () => {
  it('numintel sandbox --today dates its answers back from that day; a bad date is a usage error', async () => {
    requireBuiltCli();
    const server = startCli(['sandbox', '--port', '0', '--today', TODAY], { timeoutMs: 15_000 });
    await server.waitForStdout((out) => out.includes('\n'), 10_000);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(server.stdout())?.[1];
    const res = await fetch(`${url}/api/v1/trust`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-key-0000', 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number: N }),
    });
    expect(((await res.json()) as { data: { last_updated: string } }).data.last_updated).toBe(expected().updated);
    server.child.kill('SIGTERM');
    await server.done;

    const bad = await runCli(['sandbox', '--port', '0', '--today', '2026-02-30']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--today must be a date YYYY-MM-DD, got "2026-02-30"');
  });

  it("--sandbox takes the day of the run's clock", async () => {
    const clock = { ...systemClock, now: () => Date.parse(`${TODAY}T18:30:00Z`) };
    const r = await runInProcess(['lrn', '--sandbox', '-f', 'jsonl', N], { clock });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.lrn_activated_at).toBe(expected().activated);
  });

  it('--sandbox --today <date> fixes that day; --today without --sandbox, or not a date, is a usage error', async () => {
    const r = await runInProcess(['trust', '--sandbox', '--today', TODAY, '-f', 'jsonl', N]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.last_updated).toBe(expected().updated);
    const alone = await runInProcess(['trust', '--today', TODAY, N]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--today sets the built-in sandbox's day, and comes only with --sandbox");
    const bad = await runInProcess(['trust', '--sandbox', '--today', '15/03/2026', N]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--today must be a date YYYY-MM-DD, got "15/03/2026"');
  });

  it('the library sandbox takes the same option; bulk rows carry the single endpoint values', async () => {
    const sb = await sandbox({ today: TODAY });
    expect(((await trust(sb, { phone_number: N })).json as { data: { last_updated: string } }).data.last_updated).toBe(expected().updated);
    const bulk = (await lrnBulk(sb, { phone_numbers: [N] })).json as { results: { lrn_activated_at: string }[] };
    expect(bulk.results[0]?.lrn_activated_at).toBe(expected().activated);
  });
});
