// A server that hands numbers each other's answers (a desynchronised keep-alive connection): the
// built CLI writes every row once, in order, the wrong answers as bad_response, and keeps none of
// them, so the next run asks again rather than serving another number's name from the cache.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, jsonl, requireBuiltCli, runCli } from '../support/cli.js';
import { tempDir, writeList } from '../support/tmp.js';
import { numbersIn } from '../support/numbers.js';

const KEY = 'sk_test_echo_1234567890';
const NUMBERS = numbersIn('973', 12, 3100);
/** These get the answer of the number after them. */
const SWAPPED = new Set(NUMBERS.filter((_n, i) => i % 3 === 0));
let server: Server;
let url = '';
const asked: string[] = [];

beforeAll(async () => {
  requireBuiltCli();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { phone_number: n } = JSON.parse(Buffer.concat(chunks).toString()) as { phone_number: string };
      asked.push(n);
      const named = SWAPPED.has(n) ? String(Number(n) + 1) : n;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { number: named, cnam: `CALLER ${named.slice(-4)}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('an answer that names another number', () => {
  it('is a bad_response in its own row, never kept in the cache', async () => {
    const dir = tempDir('numintel-echo-');
    const env = cleanEnv({ NUMINTEL_API_KEY: KEY, NUMINTEL_BASE_URL: url, NUMINTEL_CACHE_DIR: dir });
    const input = writeList(dir, 'numbers.txt', NUMBERS);
    const first = await runCli(['cnam', '-i', input, '-f', 'jsonl'], { env });
    expect(first.code, first.stderr).toBe(4);
    const recs = jsonl(first.stdout);
    expect(recs.map((r) => r.number)).toEqual(NUMBERS);
    for (const r of recs) {
      if (SWAPPED.has(r.number as string)) {
        expect(r.ok).toBe(false);
        expect(r.error).toMatchObject({ code: 'bad_response' });
        expect((r.error as { message: string }).message).toContain('names another number');
      } else {
        expect(r.result).toMatchObject({ number: r.number, cnam: `CALLER ${(r.number as string).slice(-4)}` });
      }
    }
    expect(first.stderr).not.toContain(KEY);

    asked.length = 0;
    const second = await runCli(['cnam', '-i', input, '-f', 'jsonl'], { env });
    expect(second.code).toBe(4);
    // The good answers come from the cache; the swapped numbers are asked again, never served stale.
    expect(asked.sort()).toEqual([...SWAPPED].sort());
    for (const r of jsonl(second.stdout)) if (SWAPPED.has(r.number as string)) expect(r.ok).toBe(false);
  });
});
