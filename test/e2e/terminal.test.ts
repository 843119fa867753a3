// The key prompt at a real terminal: the CLI runs in a pseudo-terminal made by util-linux
// `script`, and the test types into it as a user would. What the terminal showed is captured, so
// "the key is not echoed" is checked where echo would appear, not on a pipe.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { HAS_SCRIPT, requireBuiltCli, runCli, startCli } from '../support/cli.js';
import { sandboxStats } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { numbers } from '../support/numbers.js';
import { until } from '../support/until.js';

const PROMPT = 'API key (input hidden): ';
const KEY = 'sk_live_terminal_typed_9f8e7d6c';

/** The CLI in a fresh pseudo-terminal; `screen` is everything the terminal showed. */
function inTerminal(args: string[], env: Record<string, string | undefined>) {
  const cli = startCli(args, { env, terminal: true, timeoutMs: 15_000 });
  return {
    waitFor: (text: string, ms = 10_000) => cli.waitForStdout((screen) => screen.includes(text), ms),
    type: (keys: string) => cli.child.stdin.write(keys),
    done: cli.done.then((r) => ({ code: r.code, screen: r.stdout + r.stderr })),
  };
}

describe.skipIf(!HAS_SCRIPT)(`the key prompt at a terminal${HAS_SCRIPT ? '' : ' (skipped: util-linux `script` is not installed, so no pseudo-terminal can be made)'}`, () => {
  let sb: Sandbox;
  beforeAll(async () => {
    requireBuiltCli();
    sb = await startSandbox({ port: 0, apiKeys: [KEY] });
  });
  afterAll(() => sb.close());

  /** A private config directory, the same for every command of one test. */
  const configEnv = () => ({ NUMINTEL_CONFIG_DIR: tempDir('numintel-tty-config-') });

  it('config set api-key asks without echo, stores the key, and config get shows it masked', async () => {
    const env = configEnv();
    const term = inTerminal(['config', 'set', 'api-key'], env);
    // Typed only once the prompt is up: before that the terminal would still echo by itself.
    await term.waitFor(PROMPT);
    term.type(`${KEY}\r`);
    const { code, screen } = await term.done;
    expect(code, screen).toBe(0);
    expect(screen).toContain(PROMPT);
    expect(screen).toMatch(/api-key set to /);
    expect(screen).not.toContain(KEY);
    expect(screen).not.toContain(KEY.slice(6));

    const file = join(env.NUMINTEL_CONFIG_DIR, 'config.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { default: { 'api-key': KEY } } });
    const shown = await runCli(['config', 'get', 'api-key'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.trim()).toMatch(/^sk_l.*…/);
    expect(shown.stdout + shown.stderr).not.toContain(KEY);
  });

  it('--api-key-file - at a terminal asks without echo and the lookup uses the key', async () => {
    const before = (await sandboxStats(sb)).requests.total;
    const term = inTerminal(['lrn', '--api-key-file', '-', '--base-url', sb.url, '-f', 'jsonl', '12015550123'], configEnv());
    await term.waitFor(PROMPT);
    term.type(`${KEY}\r`);
    const { code, screen } = await term.done;
    expect(code, screen).toBe(0);
    expect(screen).not.toContain(KEY);
    const line = screen.split(/\r?\n/).find((l) => l.startsWith('{'));
    expect(JSON.parse(line ?? 'null')).toMatchObject({ input: '12015550123', lookup: 'lrn', ok: true, error: null });
    // The service saw the request with the typed key (it accepts no other).
    const after = await sandboxStats(sb);
    expect(after.requests.total - before).toBe(1);
    expect(after.unauthorized).toBe(0);
  });

  it('Enter alone at the prompt: exit 2, says no key was typed, stores nothing', async () => {
    const env = configEnv();
    const term = inTerminal(['config', 'set', 'api-key'], env);
    await term.waitFor(PROMPT);
    term.type('\r');
    const { code, screen } = await term.done;
    expect(code, screen).toBe(2);
    expect(screen).toContain('no API key typed at the prompt');
    expect(screen).not.toMatch(/invalid api-key/);
    expect(existsSync(join(env.NUMINTEL_CONFIG_DIR, 'config.json'))).toBe(false);
  });

  it('Ctrl-C at the prompt: exit 130, nothing stored, nothing of the key shown', async () => {
    const env = configEnv();
    const term = inTerminal(['config', 'set', 'api-key'], env);
    await term.waitFor(PROMPT);
    term.type('sk_partial_secret');
    term.type('\x03');
    const { code, screen } = await term.done;
    expect(code, screen).toBe(130);
    expect(screen).toContain('numintel: interrupted while reading the API key');
    expect(screen).not.toContain('sk_partial_secret');
    expect(existsSync(join(env.NUMINTEL_CONFIG_DIR, 'config.json'))).toBe(false);
  });

  it('Ctrl-Z at the prompt leaves it like Ctrl-C: exit 130, nothing stored, and what is typed next never echoed', async () => {
    const env = configEnv();
    const term = inTerminal(['config', 'set', 'api-key'], env);
    await term.waitFor(PROMPT);
    term.type('sk_partial_secret');
    term.type('\x1a');
    // Where nothing can suspend the process (no job control: a script, `script -c`, a wrapper),
    // Ctrl-Z used to hand the terminal back its echo while the prompt went on reading.
    const ended = await Promise.race([term.done, new Promise<undefined>((r) => setTimeout(() => r(undefined), 1500))]);
    if (ended === undefined) term.type('sk_rest_of_key\r');
    const { code, screen } = await term.done;
    expect(screen).not.toContain('sk_rest_of_key');
    expect(screen).not.toContain('sk_partial_secret');
    expect(code, screen).toBe(130);
    expect(screen).toContain('numintel: interrupted while reading the API key');
    expect(existsSync(join(env.NUMINTEL_CONFIG_DIR, 'config.json'))).toBe(false);
  });

  it('Ctrl-C at the --api-key-file - prompt: exit 130, nothing sent', async () => {
    const before = (await sandboxStats(sb)).requests.total;
    const term = inTerminal(['lrn', '--api-key-file', '-', '--base-url', sb.url, '12015550123'], configEnv());
    await term.waitFor(PROMPT);
    term.type('sk_partial\x03');
    const { code, screen } = await term.done;
    expect(code, screen).toBe(130);
    expect(screen).not.toContain('sk_partial');
    expect((await sandboxStats(sb)).requests.total).toBe(before);
  });

  it('Ctrl-C typed twice during a run: the stopping line over the progress bar, then the resume hint, exit 130', async () => {
    const slow = await startSandbox({ port: 0, apiKeys: [KEY], latencyMs: 60_000 });
    try {
      const dir = tempDir('numintel-tty-run-');
      const list = join(dir, 'numbers.txt');
      writeFileSync(list, `${numbers(50, 1000).join('\n')}\n`);
      const out = join(dir, 'out.csv');
      const term = inTerminal(['lrn', '-i', list, '-o', out, '--concurrency', '4', '--base-url', slow.url], { ...configEnv(), NUMINTEL_API_KEY: KEY });
      // The file opens with its header before any answer; then the four requests wait a minute.
      await until('the first line of the output', () => existsSync(out) && readFileSync(out, 'utf8').includes('\n'));
      await until('four requests at the service', () => slow.stats().requests.total >= 4);
      term.type('\x03');
      await term.waitFor('numintel: stopping: finishing 4 requests in flight (Ctrl-C again to quit now)', 3000);
      term.type('\x03');
      const { code, screen } = await term.done;
      expect(code, screen).toBe(130);
      expect(screen).toContain('run the same command again with --resume to continue');
      expect(readFileSync(out, 'utf8').split('\n')[0]).toMatch(/^input,number,lrn,/);
    } finally {
      await slow.close();
    }
  });
});

describe.skipIf(!HAS_SCRIPT)('the progress bar at a terminal', () => {
  it('redraws its line on a terminal, and is left out where TERM=dumb cannot redraw one', async () => {
    const sb = await startSandbox({ port: 0, apiKeys: [KEY] });
    try {
      const dir = tempDir('numintel-tty-bar-');
      const list = join(dir, 'numbers.txt');
      // 300 numbers at the sandbox's 200/s: 1.5 s, past the bar's first draw (0.5 s).
      writeFileSync(list, `${numbers(300, 1000).join('\n')}\n`);
      const run = (term: string) => inTerminal(['lrn', '-i', list, '-o', join(dir, `${term}.csv`), '--base-url', sb.url], { NUMINTEL_API_KEY: KEY, TERM: term }).done;
      const xterm = await run('xterm');
      expect(xterm.code, xterm.screen).toBe(0);
      expect(xterm.screen).toContain('\x1b[K');
      const dumb = await run('dumb');
      expect(dumb.code, dumb.screen).toBe(0);
      expect(dumb.screen).not.toContain('\x1b[');
      expect(dumb.screen).toMatch(/rows: 300\b/);
    } finally {
      await sb.close();
    }
  });
});

