// The file helpers every part of numintel uses: a regular file read with a bound, without
// blocking on a FIFO; a file replaced whole; a directory tree made one level at a time.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileRefusedError, readRegularFile } from '../../src/fs/regular-file.js';
import { writeFileAtomically } from '../../src/fs/write-file-atomically.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();

describe('readRegularFile', () => {
  it('reads a regular file, through a link too, within the bound', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'a'), 'hello');
    symlinkSync(join(dir, 'a'), join(dir, 'link'));
    expect(readRegularFile(join(dir, 'a'), 5).bytes.toString()).toBe('hello');
    expect(readRegularFile(join(dir, 'link'), 5).info.isFile()).toBe(true);
  });

  it('refuses a FIFO (at once, no writer needed), a device, a directory, and a file past the bound', async () => {
    const dir = await tempDir();
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'dir'));
    writeFileSync(join(dir, 'big'), 'x'.repeat(11));
    const refusal = (path: string, max = 10) => {
      try {
        readRegularFile(path, max);
      } catch (err) {
        return err instanceof FileRefusedError ? `${err.code}: ${err.message}` : String(err);
      }
      return 'read';
    };
    expect(refusal(join(dir, 'fifo'))).toBe('NOT_REGULAR: it is a FIFO, not a regular file');
    expect(refusal('/dev/zero')).toBe('NOT_REGULAR: it is a character device, not a regular file');
    expect(refusal(join(dir, 'dir'))).toBe('NOT_REGULAR: it is a directory, not a regular file');
    expect(refusal(join(dir, 'big'))).toBe('TOO_LARGE: it is larger than 10 bytes');
    expect(() => readRegularFile(join(dir, 'missing'), 10)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});

describe('writeFileAtomically', () => {
  it('replaces a file whole, 0600 whatever the umask, making the directory when asked, leaving no temporary file', async () => {
    const dir = join(await tempDir(), 'a', 'b');
    const file = join(dir, 'f.json');
    writeFileAtomically(file, 'one', { makeDir: true });
    writeFileAtomically(file, Buffer.from('two'), { durable: true });
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('a failure leaves the old file as it was and no temporary file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'f');
    writeFileSync(file, 'old');
    // The rename onto a directory fails after the temporary file was written.
    mkdirSync(join(dir, 'd'));
    expect(() => writeFileAtomically(join(dir, 'd'), 'new')).toThrow();
    expect(readdirSync(dir).sort()).toEqual(['d', 'f']);
    expect(readFileSync(file, 'utf8')).toBe('old');
  });
});
