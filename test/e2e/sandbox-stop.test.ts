// `numintel sandbox` in the foreground, stopped as a user or a script stops it: Ctrl-C (SIGINT),
// SIGTERM, SIGHUP. It says it stopped, and exits 130 as every command interrupted by a signal
// does (cli.md), so that a shell or a script sees the server did not end by itself.
import { describe, expect, it } from 'vitest';
import { requireBuiltCli, startCli } from '../support/cli.js';

describe.concurrent('numintel sandbox stopped by a signal (the built program)', () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('%s: "stopped" on stderr, the port closed, exit 130', async (signal) => {
    requireBuiltCli();
    const server = startCli(['sandbox', '--port', '0'], { timeoutMs: 15_000 });
    await server.waitForStdout((out) => out.includes('\n'), 10_000);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(server.stdout())?.[1];
    expect(url, server.stdout()).toBeDefined();
    expect((await fetch(`${url}/__sandbox/stats`)).status).toBe(200);
    server.child.kill(signal);
    const r = await server.done;
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toBe('numintel sandbox: stopped\n');
    await expect(fetch(`${url}/__sandbox/stats`)).rejects.toThrow();
  });
});
