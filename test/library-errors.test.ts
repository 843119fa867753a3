// The library's errors: each a class with a stable code, options refused where they are passed
// with the caller's own names, and the one mapping from code to exit code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as lib from '../src/index.js';
import { createClient, NumintelError, startSandbox } from '../src/index.js';
import { EXIT, exitCodeOf, describeFailure } from '../src/cli/exit.js';
import type { ErrorCode } from '../src/core/errors.js';

const base = { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' };

function refusal(fn: () => unknown): NumintelError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(NumintelError);
    return err as NumintelError;
  }
  throw new Error('expected a refusal');
}

describe('createClient options', () => {
  it.each([
    [{ concurrency: 0 }, 'Expected `concurrency` to be an integer ≥ 1, got 0'],
    [{ concurrency: 2.5 }, 'Expected `concurrency` to be an integer ≥ 1, got 2.5'],
    [{ retries: -1 }, 'Expected `retries` to be an integer ≥ 0, got -1'],
    [{ timeoutMs: 0 }, 'Expected `timeoutMs` to be a number ≥ 1 and ≤ 2147483647, got 0'],
    [{ timeoutMs: 2 ** 31 }, 'Expected `timeoutMs` to be a number ≥ 1 and ≤ 2147483647, got 2147483648'],
    [{ rates: { lrn: -5 } }, 'Expected `rates.lrn` to be requests per second: 0 (no limit) or at least one a day (1/86400), got -5'],
    [{ rates: { lrn: 1e-9 } }, 'Expected `rates.lrn` to be requests per second: 0 (no limit) or at least one a day (1/86400), got 1e-9'],
    [{ transport: 'soap' }, 'Expected `transport` to be "rest", "graphql" or "bulk", got "soap"'],
    [{ cache: 'disk' }, 'Expected `cache` to be "memory", "off" or an AnswerStore (slot and close methods), got "disk"'],
    [{ cache: null }, 'Expected `cache` to be "memory", "off" or an AnswerStore (slot and close methods), got null'],
    [{ cache: new Map() }, 'Expected `cache` to be "memory", "off" or an AnswerStore (slot and close methods), got object'],
    [{ clock: Date }, 'Expected `clock` to be a Clock (now and sleep methods), got function'],
  ])('%o is refused at construction: %s', (extra, message) => {
    const err = refusal(() => createClient({ ...base, ...(extra as object) }));
    expect(err).toBeInstanceOf(lib.BadOptionError);
    expect(err).toMatchObject({ code: 'NUMINTEL_BAD_OPTION', kind: 'usage', message });
  });

  it.each([
    ['', 'Expected `apiKey` to be printable ASCII without spaces, got an empty string'],
    ['SECRET-key\n', 'Expected `apiKey` to be printable ASCII without spaces, got a key of 11 characters that is not'],
    ['SECRET key 1234', 'Expected `apiKey` to be printable ASCII without spaces, got a key of 15 characters that is not'],
    ['SECRET-clé-1234', 'Expected `apiKey` to be printable ASCII without spaces, got a key of 15 characters that is not'],
  ])('an API key that cannot go into a header (%j) is refused at construction, never quoted', (apiKey, message) => {
    const err = refusal(() => createClient({ ...base, apiKey }));
    expect(err).toMatchObject({ code: 'NUMINTEL_BAD_OPTION', message });
    expect(`${err.stack} ${JSON.stringify(err)}`).not.toContain('SECRET');
  });

  it('an unknown key of rates is an unknown lookup', () => {
    const err = refusal(() => createClient({ ...base, rates: { lnr: 5 } as never }));
    expect(err).toMatchObject({ code: 'NUMINTEL_UNKNOWN_LOOKUP' });
  });

  it('a bad base URL is NUMINTEL_BAD_BASE_URL, not a generic usage error', () => {
    const err = refusal(() => createClient({ ...base, baseUrl: 'ftp://x' }));
    expect(err).toBeInstanceOf(lib.BadBaseUrlError);
    expect(err.code).toBe('NUMINTEL_BAD_BASE_URL');
  });

  it('lookup of an unknown kind rejects with NUMINTEL_UNKNOWN_LOOKUP, not a TypeError', async () => {
    const client = createClient(base);
    await expect(client.lookup('foo' as never, '2015550123')).rejects.toMatchObject({
      name: 'UnknownLookupError',
      code: 'NUMINTEL_UNKNOWN_LOOKUP',
      message: 'Expected a lookup (lrn, cnam, trust), got "foo"',
    });
    const it = client.enrich(['lrn', 'bogus' as never], ['2015550123'])[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toBeInstanceOf(lib.UnknownLookupError);
    await client.close();
  });

  it('a refused key and a 402 are told apart by class and code', async () => {
    const sb = await startSandbox({ port: 0 });
    try {
      const client = createClient({ baseUrl: sb.url, apiKey: 'not-a-valid-key-at-all' });
      await expect(client.lookup('trust', '12015550123')).rejects.toMatchObject({ code: 'NUMINTEL_KEY_REFUSED', kind: 'refused' });
      await client.close();
    } finally {
      await sb.close();
    }
  });
});

describe("the library's errors advise createClient's options, not the command line's flags", () => {
  // The command line's words for the same settings: none may reach a library caller.
  const CLI_WORDS = /--[a-z]|NUMINTEL_API_KEY|numintel config/;
  const said = (err: unknown) => `${(err as Error).message} ${(err as NumintelError).hint ?? ''}`;

  it('an untrusted certificate says to pass `ca`', async () => {
    const tls = await startSandbox({ port: 0, tls: true });
    const client = createClient({ baseUrl: tls.url, apiKey: tls.apiKey });
    try {
      const err = await client.lookup('lrn', '2015550123').catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'NUMINTEL_TLS', message: expect.stringMatching(/is not trusted \(self-signed certificate\); if this is a private CA, pass its PEM as `ca` or set NODE_EXTRA_CA_CERTS$/) });
      expect(said(err)).not.toMatch(CLI_WORDS);
    } finally {
      await client.close();
      await tls.close();
    }
  });

  it('a refused key, and a base URL carrying credentials, point to `apiKey`', async () => {
    const sb = await startSandbox({ port: 0 });
    const client = createClient({ baseUrl: sb.url, apiKey: 'sk_wrong_0123456789abcdef' });
    try {
      const err = await client.lookup('trust', '2015550123').catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'NUMINTEL_KEY_REFUSED', message: expect.stringMatching(/; check the `apiKey` option; the run stopped$/) });
      expect(said(err)).not.toMatch(CLI_WORDS);
    } finally {
      await client.close();
      await sb.close();
    }
    const url = refusal(() => createClient({ ...base, baseUrl: 'https://user:pass@api.example.com' }));
    expect(url).toMatchObject({ code: 'NUMINTEL_BAD_BASE_URL', hint: 'put the API key in the `apiKey` option' });
  });

  it('a timed-out lookup says to raise `timeoutMs`; a wait too long, `maxWaitMs`', async () => {
    const slow = await startSandbox({ port: 0, latencyMs: 300 });
    const limited = await startSandbox({ port: 0, rate429: 1 });
    const a = createClient({ baseUrl: slow.url, apiKey: slow.apiKey, timeoutMs: 50, retries: 0 });
    const b = createClient({ baseUrl: limited.url, apiKey: limited.apiKey, maxWaitMs: 0 });
    try {
      const record = await a.lookup('lrn', '2015550123');
      expect(record.error).toMatchObject({ code: 'timeout', message: expect.stringMatching(/; try again later or raise `timeoutMs`$/) });
      const err = await (async () => {
        for await (const r of b.bulk('lrn', ['2015550123'])) void r;
      })().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'NUMINTEL_WAIT_TOO_LONG', message: expect.stringMatching(/, longer than `maxWaitMs` allows/), hint: 'try again after that wait, or raise `maxWaitMs`' });
      expect(`${record.error?.message} ${said(err)}`).not.toMatch(CLI_WORDS);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await Promise.all([slow.close(), limited.close()]);
    }
  });
});

describe('exit codes come from error codes', () => {
  const cases: [ErrorCode, number][] = [
    ['NUMINTEL_USAGE', 2],
    ['NUMINTEL_NO_API_KEY', 2],
    ['NUMINTEL_TLS', 2],
    ['NUMINTEL_KEY_REFUSED', 3],
    ['NUMINTEL_PAYMENT_REQUIRED', 3],
    ['NUMINTEL_SERVICE_DOWN', 5],
    ['NUMINTEL_WAIT_TOO_LONG', 5],
    ['NUMINTEL_INTERRUPTED', 130],
    ['NUMINTEL_INTERNAL', 1],
  ];
  it.each(cases)('%s → %i', (code, exit) => expect(exitCodeOf(code)).toBe(exit));

  it('every exported error class has a distinct code, a matching name, and an exit code', () => {
    const classes = Object.entries(lib).filter(([name, v]) => typeof v === 'function' && name.endsWith('Error') && v !== NumintelError);
    expect(classes.length).toBeGreaterThanOrEqual(19);
    const codes = new Set<string>();
    for (const [name, C] of classes) {
      const err = new (C as new (m: string, h?: string) => NumintelError)('m', 'h');
      expect(err).toBeInstanceOf(NumintelError);
      expect(err.name).toBe(name);
      expect(err.code).toMatch(/^NUMINTEL_[A-Z_]+$/);
      codes.add(err.code);
      expect(describeFailure(err)).toEqual({ code: exitCodeOf(err.code), message: 'numintel: m\nh' });
    }
    expect(codes.size).toBe(classes.length);
    expect(EXIT.stopped).toBe(5);
  });
});

describe('lookup and bulk arguments', () => {
  it('a number that is not a string, or numbers that are not iterable, are BadOptionErrors', async () => {
    const client = createClient(base);
    await expect(client.lookup('lrn', 2015550123 as never)).rejects.toMatchObject({ code: 'NUMINTEL_BAD_OPTION', message: 'Expected `number` to be a string, got 2015550123' });
    const it1 = client.bulk('lrn', 42 as never)[Symbol.asyncIterator]();
    await expect(it1.next()).rejects.toMatchObject({ code: 'NUMINTEL_BAD_OPTION', message: 'Expected `numbers` to be an iterable or async iterable of strings, got 42' });
    // One string is an iterable of its characters: refused rather than looked up digit by digit.
    const it3 = client.bulk('lrn', '2015550123')[Symbol.asyncIterator]();
    await expect(it3.next()).rejects.toMatchObject({ code: 'NUMINTEL_BAD_OPTION', message: 'Expected `numbers` to be an iterable or async iterable of strings, not one string (pass [number]), got "2015550123"' });
    const it4 = client.enrich(['lrn'], '2015550123')[Symbol.asyncIterator]();
    await expect(it4.next()).rejects.toMatchObject({ code: 'NUMINTEL_BAD_OPTION' });
    const it2 = client.bulk('lrn', ['2015550123', null] as never)[Symbol.asyncIterator]();
    await expect(it2.next()).rejects.toMatchObject({ code: 'NUMINTEL_BAD_OPTION', message: 'Expected `numbers[1]` to be a string, got null' });
    await client.close();
  });
});

describe('lookup options are checked at run time, against the lookups that have them', () => {
  it.each([
    [{ enhanced: 'yes' }, 'Expected `enhanced` to be a boolean (true or false), got "yes"'],
    [{ messaging: 1 }, 'Expected `messaging` to be a boolean (true or false), got 1'],
    [{ spam: true }, '`spam` is an option of cnam, not of lrn'],
    [{ spam: false }, '`spam` is an option of cnam, not of lrn'],
    [{ enhansed: true }, '`enhansed` is not an option of lrn (its options: enhanced, messaging; and validate, signal, stats)'],
    [{ validate: 'no' }, 'Expected `validate` to be a boolean, got "no"'],
    [{ signal: true }, 'Expected `signal` to be an AbortSignal, got true'],
    [null, 'Expected `options` to be an object, got null'],
  ])('lookup("lrn", n, %o) is refused, nothing sent: %s', async (options, message) => {
    const sb = await startSandbox({ port: 0 });
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    try {
      await expect(client.lookup('lrn', '2015550123', options as never)).rejects.toMatchObject({ name: 'BadOptionError', code: 'NUMINTEL_BAD_OPTION', kind: 'usage', message });
      await expect(client.bulk('lrn', ['2015550123'], options as never)[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'NUMINTEL_BAD_OPTION', message });
      expect(sb.stats().requests.total).toBe(0);
    } finally {
      await client.close();
      await sb.close();
    }
  });

  it('enrich() takes an option any of its lookups has, and refuses one none of them has', async () => {
    const sb = await startSandbox({ port: 0 });
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    try {
      const records = [];
      for await (const r of client.enrich(['lrn', 'cnam'], ['2015550123'], { enhanced: true, spam: true, validate: true, stats: undefined })) records.push(r);
      expect(records[0]).toMatchObject({ ok: true, results: { lrn: { enhanced_lrn_data: expect.any(Object) }, cnam: { spam_type: expect.any(String) } } });
      const refused = client.enrich(['lrn', 'trust'], ['2015550123'], { spam: true })[Symbol.asyncIterator]().next();
      await expect(refused).rejects.toMatchObject({ code: 'NUMINTEL_BAD_OPTION', message: '`spam` is an option of cnam, not of lrn and trust' });
    } finally {
      await client.close();
      await sb.close();
    }
  });
});

describe('ca and env are checked by createClient', () => {
  let tls: Awaited<ReturnType<typeof startSandbox>>;
  beforeAll(async () => {
    tls = await startSandbox({ port: 0, tls: true });
  });
  afterAll(() => tls.close());

  it.each([
    [{ ca: 'not a certificate' }, '`ca` holds no PEM certificate (-----BEGIN CERTIFICATE-----)'],
    [{ ca: ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'] }, /^`ca\[0\]` holds a certificate that cannot be read \(number 1: /],
    [{ ca: 42 }, 'Expected `ca` to be PEM text (a string or a Buffer) or an array of them, got 42'],
    [{ ca: [null] }, 'Expected `ca[0]` to be PEM text (a string or a Buffer), got null'],
    [{ env: 'HTTPS_PROXY=http://proxy:3128' }, 'Expected `env` to be an object of strings (process.env), got "HTTPS_PROXY=http://proxy:3128"'],
    [{ env: { HTTPS_PROXY: 3128 } }, 'Expected `env.HTTPS_PROXY` to be a string, got 3128'],
  ])('%o is refused at construction, by its name', (extra, message) => {
    const err = refusal(() => createClient({ ...base, ...(extra as object) }));
    expect(err).toBeInstanceOf(lib.BadOptionError);
    expect(err).toMatchObject({ code: 'NUMINTEL_BAD_OPTION', kind: 'usage' });
    if (typeof message === 'string') expect(err.message).toBe(message);
    else expect(err.message).toMatch(message);
  });

  it('a `ca` of the sandbox as text, as a Buffer or in a list is trusted; process.env is an env', async () => {
    const pem = tls.ca ?? '';
    for (const ca of [pem, Buffer.from(pem), [pem]]) {
      const client = createClient({ baseUrl: tls.url, apiKey: tls.apiKey, ca, env: { ...process.env, HTTPS_PROXY: undefined, https_proxy: undefined } });
      expect(await client.lookup('trust', '2015550123')).toMatchObject({ ok: true });
      await client.close();
    }
  });
});

describe('a closed client', () => {
  it('refuses lookup(), bulk() and enrich() at once with NUMINTEL_USAGE, sending nothing; close() twice is fine', async () => {
    const sb = await startSandbox({ port: 0 });
    try {
      const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
      expect((await client.lookup('lrn', '2015550123')).ok).toBe(true);
      await client.close();
      await client.close();
      const refused = { name: 'UsageError', code: 'NUMINTEL_USAGE', message: 'the client is closed: make another with createClient()' };
      await expect(client.lookup('lrn', '2015550124')).rejects.toMatchObject(refused);
      // A bulk of 30 new numbers used to end with ServiceDownError ("the service kept failing").
      const numbers = Array.from({ length: 30 }, (_, i) => `20155502${String(i).padStart(2, '0')}`);
      await expect(client.bulk('lrn', numbers)[Symbol.asyncIterator]().next()).rejects.toMatchObject(refused);
      await expect(client.enrich(['lrn', 'cnam'], numbers)[Symbol.asyncIterator]().next()).rejects.toMatchObject(refused);
      expect(sb.stats().requests.total).toBe(1);
    } finally {
      await sb.close();
    }
  });
});
