import { writeFile } from 'node:fs/promises';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { apiKeyFileReader, readHiddenLine, readSecretStream, trimOneNewline } from '../../src/settings/secret-input.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

describe('trimOneNewline', () => {
  it('removes exactly one trailing LF or CRLF', () => {
    expect(trimOneNewline('k\n')).toBe('k');
    expect(trimOneNewline('k\r\n')).toBe('k');
    expect(trimOneNewline('k\n\n')).toBe('k\n');
    expect(trimOneNewline('k')).toBe('k');
  });
});

describe('readSecretStream', () => {
  it('reads everything piped in', async () => {
    expect(await readSecretStream(Readable.from(['sk_', 'live\n']), 'stdin')).toBe('sk_live\n');
  });

  it('refuses something far too large to be a key', async () => {
    const big = Readable.from([Buffer.alloc(70 * 1024, 'a')]);
    await expect(readSecretStream(big, 'standard input')).rejects.toMatchObject({ kind: 'usage' });
  });
});

describe('apiKeyFileReader', () => {
  it('reads a path relative to cwd, and stdin for "-"', async () => {
    const dir = await tempDir();
    await writeFile(`${dir}/key`, 'from-file\n');
    const read = apiKeyFileReader(() => Readable.from(['from-stdin\n']), dir);
    expect(await read('key')).toBe('from-file\n');
    expect(await read('-')).toBe('from-stdin\n');
  });
});

describe('readHiddenLine', () => {
  it('asks on the output, returns the line and never echoes it', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = new PassThrough();
    const shown = collect(output);
    const answer = readHiddenLine(input, output, 'API key: ');
    input.write('sk_live_hidden_value\n');
    expect(await answer).toBe('sk_live_hidden_value');
    expect(shown()).toBe('API key: \n');
  });

  it('fails as interrupted when the signal aborts', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const controller = new AbortController();
    const answer = readHiddenLine(input, new PassThrough(), 'API key: ', controller.signal);
    controller.abort();
    await expect(answer).rejects.toMatchObject({ kind: 'interrupted' });
  });

  it('fails as a usage error when input ends before a line', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const answer = readHiddenLine(input, new PassThrough(), 'API key: ');
    input.end();
    await expect(answer).rejects.toMatchObject({ kind: 'usage' });
  });
});

describe('apiKeyFileReader: bounded and interruptible', () => {
  it('a key file past 64 KiB is refused, and /dev/zero too, without reading it all', async () => {
    const dir = await tempDir();
    await writeFile(`${dir}/big`, Buffer.alloc(64 * 1024 + 2, 0x61));
    const read = apiKeyFileReader(() => new PassThrough(), dir);
    await expect(read('big')).rejects.toMatchObject({ code: 'NUMINTEL_INPUT', message: expect.stringContaining('larger than 65536 bytes') });
    // A device is refused before it is read (resolve.ts words it as the key's input error).
    await expect(read('/dev/zero')).rejects.toMatchObject({ message: 'it is a character device, not a file or a pipe' });
    await writeFile(`${dir}/ok`, 'sk_test_fine\n');
    await expect(read('ok')).resolves.toBe('sk_test_fine\n');
  });

  it('a FIFO with no writer, or a silent stdin, ends on interrupt', async () => {
    const { execFileSync } = await import('node:child_process');
    const dir = await tempDir();
    execFileSync('mkfifo', [`${dir}/fifo`]);
    const ac = new AbortController();
    const silent = new PassThrough();
    const read = apiKeyFileReader(() => silent, dir, { output: new PassThrough(), signal: ac.signal });
    const fromFifo = read('fifo');
    const fromStdin = read('-');
    setTimeout(() => ac.abort(), 50);
    await expect(fromFifo).rejects.toMatchObject({ code: 'NUMINTEL_INTERRUPTED' });
    await expect(fromStdin).rejects.toMatchObject({ code: 'NUMINTEL_INTERRUPTED' });
  });
});
