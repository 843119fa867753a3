// The built CLI against loopback servers that frame their answers in ways a client must survive:
// interim 1xx answers before the real one (read, each number sent once), and lengths no parser may
// read on (refused at once, never spun on past --timeout), by argument and by stdin, on Node's
// client (a run's first requests) and on undici's (the rest of a run, here one at a time).
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonl, requireBuiltCli, runCli } from '../support/cli.js';
import { rawServer } from '../support/raw-server.js';

beforeAll(() => requireBuiltCli());

const KEY = 'hostile-framing-key-5d2e';
const LRN = JSON.stringify({ lrn: '12015550000', lrn_activated_at: null });
const OK = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${LRN.length}\r\n\r\n${LRN}`;
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

const NUMBERS = ['12015550123', '12015550124', '12015550125', '12015550126', '12015550127'];
const env = (url: string) => ({ NUMINTEL_BASE_URL: url, NUMINTEL_API_KEY: KEY });

/** How a run is given its numbers: every one of them through the CLI as a user would. */
const WAYS: [string, (numbers: string[]) => { args: string[]; stdin?: string }][] = [
  ['by argument', (numbers) => ({ args: ['lrn', '--no-cache', ...numbers] })],
  ['on stdin', (numbers) => ({ args: ['lrn', '--no-cache'], stdin: `${numbers.join('\n')}\n` })],
  // After the first answer, the rest of the run goes out on undici's pool.
  ['on stdin one at a time', (numbers) => ({ args: ['lrn', '--no-cache', '--concurrency', '1'], stdin: `${numbers.join('\n')}\n` })],
];

describe('an unsolicited 100 Continue before every answer', () => {
  it.each(WAYS)('is read past %s: every number answered, each sent once', async (_, way) => {
    for (const numbers of [NUMBERS.slice(0, 1), NUMBERS]) {
      const server = await rawServer(() => [CONTINUE + OK]);
      const { args, stdin } = way(numbers);
      const run = await runCli(args, { env: env(server.url), stdin });
      expect(run.code, run.stderr).toBe(0);
      expect(jsonl(run.stdout).map((r) => [r.number, r.ok])).toEqual(numbers.map((n) => [n, true]));
      expect(server.requests()).toBe(numbers.length);
    }
  });

  it('that first comes once the run is on undici costs one number one more request, and the rest of the run goes back to Node', async () => {
    const server = await rawServer((n) => [n === 0 ? OK : CONTINUE + OK]);
    const { args, stdin } = WAYS[2]![1](NUMBERS);
    const run = await runCli(args, { env: env(server.url), stdin });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonl(run.stdout).map((r) => [r.number, r.ok])).toEqual(NUMBERS.map((n) => [n, true]));
    expect(server.requests()).toBe(NUMBERS.length + 1);
  });
});

/** Answers no client may read on. */
const HOSTILE: [string, string][] = [
  ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: -40\r\n\r\n{}'],
  ['a Content-Length that is not a number', 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4x\r\n\r\n{}'],
  ['a negative chunk size', 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n-28\r\n{}\r\n0\r\n\r\n'],
  ['a 1xx with a negative length', 'HTTP/1.1 103 Early Hints\r\nContent-Length: -40\r\n\r\n' + OK],
];

describe.each(HOSTILE)('an answer with %s', (_, hostile) => {
  it.each(WAYS)('is refused at once %s, retried once as it may have been billed, each row saying why', async (way, given) => {
    // The first answer is sound: the run sending one at a time goes on to undici's pool for the rest.
    const oneAtATime = way === 'on stdin one at a time';
    const server = await rawServer((n) => [oneAtATime && n === 0 ? OK : hostile]);
    const numbers = oneAtATime ? NUMBERS : NUMBERS.slice(0, 2);
    const { args, stdin } = given(numbers);
    const started = performance.now();
    // --timeout far past the test's patience: only a refusal at once ends the run in time.
    const run = await runCli([...args, '--timeout', '60'], { env: env(server.url), stdin, timeoutMs: 20_000 });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code).not.toBe(0);
    const records = jsonl(run.stdout);
    expect(records.map((r) => r.number)).toEqual(numbers);
    const refused = records.slice(oneAtATime ? 1 : 0);
    for (const r of refused) {
      expect(r.ok).toBe(false);
      expect(r.error).toMatchObject({ code: 'bad_response', message: expect.stringMatching(/answered but the answer could not be read.*retried once at most/) });
      expect(JSON.stringify(r)).not.toContain(KEY);
    }
    expect(server.requests()).toBe(records.length - refused.length + 2 * refused.length);
  });
});
