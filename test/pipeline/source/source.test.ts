import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../../src/pipeline/source/source.js';
import { collect, FIXTURES, inputs, io, pipedStdin, terminalStdin, usageFailure } from './helpers.js';
import { tempDir } from '../../support/tmp.js';

describe('where numbers come from', () => {
  it('takes arguments first, in order, and counts them', async () => {
    const source = await openSource({ args: ['2015550123', '(201) 555-0124'] }, io({ stdin: pipedStdin('2125550199\n') }));
    expect(source.kind).toBe('args');
    expect(source.columns).toBeNull();
    expect(await collect(source.items)).toEqual([
      { index: 0, input: '2015550123' },
      { index: 1, input: '(201) 555-0124' },
    ]);
    expect(await source.countTotal()).toBe(2);
  });

  it('refuses arguments together with --input', async () => {
    const err = await usageFailure(openSource({ args: ['2015550123'], input: 'list.txt' }, io()));
    expect(err.message).toMatch(/both/);
  });

  it('refuses an argument that names a file (a forgotten -i), and keeps words that name none as numbers', async () => {
    const err = await usageFailure(openSource({ args: ['2015550123', 'list.txt'] }, io()));
    expect(err.message).toBe('"list.txt" is a file, not a phone number');
    expect(err.hint).toBe('to read the numbers in it, give it with -i: -i list.txt');
    const source = await openSource({ args: ['no-such.csv', '201-555-0123 x12'] }, io());
    expect(inputs(await collect(source.items))).toEqual(['no-such.csv', '201-555-0123 x12']);
  });

  it('reads --input relative to cwd', async () => {
    const source = await openSource({ args: [], input: 'list.txt' }, io());
    expect(source.kind).toBe('list');
    expect(inputs(await collect(source.items))).toEqual(['2015550123', '(201) 555-0124', '+1 201.555.0125']);
  });

  it('reads stdin for "-" even when it is a terminal', async () => {
    const stdin = Object.assign(pipedStdin('2015550123\n'), { isTTY: true });
    const source = await openSource({ args: [], input: '-' }, io({ stdin }));
    expect(inputs(await collect(source.items))).toEqual(['2015550123']);
    expect(await source.countTotal()).toBeUndefined();
  });

  it('reads piped stdin when nothing else is given', async () => {
    const source = await openSource({ args: [] }, io({ stdin: pipedStdin('2015550123\n2015550124') }));
    expect(inputs(await collect(source.items))).toEqual(['2015550123', '2015550124']);
  });

  it('says how to give numbers when there are none and stdin is a terminal', async () => {
    const err = await usageFailure(openSource({ args: [] }, io({ stdin: terminalStdin() })));
    expect(err.message).toBe('no numbers given');
    expect(err.hint).toBe('pass numbers as arguments, -i <file>, or pipe them on stdin');
  });
});

describe('plain lists', () => {
  it('skips blank lines and # comments, trims, and indexes only entries', async () => {
    const source = await openSource({ args: [], input: 'list.txt' }, io());
    expect(await collect(source.items)).toEqual([
      { index: 0, input: '2015550123' },
      { index: 1, input: '(201) 555-0124' },
      { index: 2, input: '+1 201.555.0125' },
    ]);
    expect(await source.countTotal()).toBe(3);
  });

  it('handles a BOM and CRLF line ends', async () => {
    const source = await openSource({ args: [] }, io({ stdin: pipedStdin('\uFEFF2015550123\r\n2015550124\r\n') }));
    expect(source.kind).toBe('list');
    expect(inputs(await collect(source.items))).toEqual(['2015550123', '2015550124']);
  });

  it('keeps a multi-byte character split across chunks whole', async () => {
    const stdin = new PassThrough();
    const bytes = Buffer.from('2015550123 é\n');
    const cut = bytes.indexOf(0xc3) + 1;
    stdin.write(bytes.subarray(0, cut));
    stdin.end(bytes.subarray(cut));
    const source = await openSource({ args: [] }, io({ stdin }));
    expect(inputs(await collect(source.items))).toEqual(['2015550123 é']);
  });

  it('is a list, not CSV, when a comment line holds commas', async () => {
    const source = await openSource({ args: [] }, io({ stdin: pipedStdin('# numbers, one a line\n2015550123\n') }));
    expect(source.kind).toBe('list');
    expect(inputs(await collect(source.items))).toEqual(['2015550123']);
  });

  it('yields nothing for empty input', async () => {
    const source = await openSource({ args: [] }, io({ stdin: pipedStdin('') }));
    expect(await collect(source.items)).toEqual([]);
  });
});

describe('a slow producer on stdin', () => {
  // The producer waits (event-loop turns, for two seconds at most) for the first item before it
  // sends the rest and ends: a source that waited for the end of input would see "end" first.
  async function firstItemBeforeEnd(first: string, rest: string): Promise<string[]> {
    const stdin = new PassThrough();
    const events: string[] = [];
    let seen = false;
    stdin.write(first);
    const producer = (async () => {
      for (const deadline = Date.now() + 2000; !seen && Date.now() < deadline; ) await new Promise((r) => setImmediate(r));
      stdin.end(rest);
      events.push('producer ended');
    })();
    const source = await openSource({ args: [] }, io({ stdin }));
    for await (const item of source.items) {
      events.push(`item ${item.index}`);
      seen = true;
    }
    await producer;
    return events;
  }

  it('yields a list line as soon as it arrives', async () => {
    expect(await firstItemBeforeEnd('2015550123\n', '2015550124\n')).toEqual(['item 0', 'producer ended', 'item 1']);
  });

  it('yields a CSV row as soon as it arrives when the header names the column', async () => {
    expect(await firstItemBeforeEnd('name,phone\nAda,2015550123\n', 'Bob,2015550124\n')).toEqual(['item 0', 'producer ended', 'item 1']);
  });
});

describe('unreadable input', () => {
  it('names a missing file', async () => {
    const err = await usageFailure(openSource({ args: [], input: 'nope.csv' }, io()));
    expect(err.message).toBe('cannot read nope.csv: no such file');
  });

  it('names a directory', async () => {
    const err = await usageFailure(openSource({ args: [], input: '.' }, io()));
    expect(err.message).toBe('cannot read .: it is a directory');
  });

  it('names a file that cannot be opened', async () => {
    const denied = () =>
      new Readable({
        read() {
          this.destroy(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
        },
      });
    const err = await usageFailure(openSource({ args: [], input: 'list.txt' }, io({ openFile: denied })));
    expect(err.message).toBe('cannot read list.txt: permission denied');
  });

  it('turns a read failure after the first line into a usage error too', async () => {
    const failing = () =>
      Readable.from(
        (async function* () {
          yield Buffer.from('2015550123\n');
          throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        })(),
      );
    const source = await openSource({ args: [], input: 'list.txt' }, io({ openFile: failing }));
    const err = await usageFailure(collect(source.items));
    expect(err.message).toBe('cannot read list.txt: input/output error');
  });
});

describe('total', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('numintel-source-');
  });

  it('counts list entries of a regular file', async () => {
    await writeFile(join(dir, 'n.txt'), '# x\n2015550123\n\n2015550124\n  # y\n2015550125');
    const source = await openSource({ args: [], input: 'n.txt' }, io({ cwd: dir }));
    expect(await source.countTotal()).toBe(3);
    expect(await collect(source.items)).toHaveLength(3);
  });

  it('reads the file a second time only when asked, and only once', async () => {
    await writeFile(join(dir, 'lazy.txt'), '2015550123\n2015550124\n');
    const opened: string[] = [];
    const openFile = (path: string) => {
      opened.push(path);
      return createReadStream(path);
    };
    const source = await openSource({ args: [], input: 'lazy.txt' }, io({ cwd: dir, openFile }));
    expect(await collect(source.items)).toHaveLength(2);
    await new Promise((done) => setImmediate(done));
    expect(opened).toHaveLength(1);
    const first = source.countTotal();
    expect(source.countTotal()).toBe(first);
    expect(await first).toBe(2);
    expect(opened).toHaveLength(2);
  });

  it('is unknown for stdin', async () => {
    const source = await openSource({ args: [] }, io({ stdin: pipedStdin('name,phone\nA,2015550123\n') }));
    expect(await source.countTotal()).toBeUndefined();
  });

  it('lets a source that is never read be closed', async () => {
    const opened: Readable[] = [];
    const openFile = (path: string) => {
      const stream = createReadStream(path);
      opened.push(stream);
      return stream;
    };
    const source = await openSource({ args: [], input: join(FIXTURES, 'leads.csv') }, io({ openFile }));
    await source.close();
    expect(opened[0]?.destroyed).toBe(true);
  });
});
