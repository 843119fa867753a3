// Checks on the -o file made before anything is opened for writing or sent: a setup mistake (a
// directory, a missing folder, no permission, the input itself) is told in one line and exits 2,
// and the user's files are as they were.
// fs.promises, not node:fs/promises: the module loads on first use, not with every run's start-up.
import { constants, fstat, promises as fs, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { errnoCode, ioReason } from '../core/io-errors.js';
import { OutputError } from '../core/errors.js';

/** Where the input comes from, to tell whether the output would overwrite it. */
export interface InputOrigin {
  /** -i <file>, resolved. */
  readonly path?: string;
  /** Standard input's descriptor, when numbers come from there (`< file` makes it a file). */
  readonly fd?: number;
}

/** How a message names the file checked and the input: `-o` and `-i`, or `--report`, `--html`. */
export interface OutputNames {
  readonly flag: string;
  readonly input: string;
  /** What writing the file would put there: "the output", "the report". */
  readonly what: string;
}

/** The names of this process's standard input. */
const STDIN_NAMES = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', `/proc/${process.pid}/fd/0`]);

const RECORDS: OutputNames = { flag: '-o', input: '-i', what: 'the output' };

/** Throws a usage error when `path` cannot be written, or is the input under another name. */
export async function checkOutputFile(path: string, label: string, input: InputOrigin, names: OutputNames = RECORDS): Promise<void> {
  // An empty name (`-o ""`, an unset shell variable) would resolve to the current directory.
  if (label === '') throw new OutputError(`${names.flag} needs a file name, and was given an empty one`);
  const cannot = (why: string) => new OutputError(`cannot write ${label}: ${why}`);
  const info = await fs.stat(path).catch((err: unknown) => {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw cannot(ioReason(err));
  });
  if (info === undefined) {
    // A new file: its folder must exist and take new files.
    const dir = dirname(path);
    const folder = await fs.stat(dir).catch((err: unknown) => {
      throw cannot(errnoCode(err) === 'ENOENT' ? `no such directory ${dir}` : ioReason(err));
    });
    if (!folder.isDirectory()) throw cannot(`${dir} is not a directory`);
    await fs.access(dir, constants.W_OK).catch((err: unknown) => {
      throw cannot(`${ioReason(err)} (cannot create files in ${dir})`);
    });
    return;
  }
  if (info.isDirectory()) throw cannot('it is a directory; give a file name, e.g. -o <directory>/out.csv');
  if (input.path === undefined && input.fd !== undefined && STDIN_NAMES.has(path)) {
    throw new OutputError(`${names.flag} ${label} is standard input, which the numbers are read from; ${names.what} would be read back as input, so write it to another file`);
  }
  // A regular file is destroyed by writing over it, and a pipe or socket would feed what is written
  // back in as input; a terminal or /dev/null may be both ends.
  if ((info.isFile() || info.isFIFO() || info.isSocket()) && sameFile(info, await inputStats(input))) {
    const from = input.path === undefined && !info.isFile() ? 'standard input' : names.input;
    const harm = info.isFile() ? 'would destroy the input' : 'would be read back as input';
    throw new OutputError(`${from} and ${names.flag} name the same file (${label}); writing ${names.what} ${harm}, so write it to another file`);
  }
  await fs.access(path, constants.W_OK).catch((err: unknown) => {
    throw cannot(ioReason(err));
  });
}

/**
 * The HTML page of `--report` (or `report --html`), before anything is read or sent: checked as -o
 * is, and never the -o file itself, whose records the page would replace once the run is paid for.
 */
export async function checkReportFile(path: string, label: string, input: InputOrigin, names: Omit<OutputNames, 'what'>, output?: string): Promise<void> {
  // `-` is standard output everywhere else (-o -, -i -): a page quietly written to a file named "-" is not what was meant.
  if (label === '-') throw new OutputError(`${names.flag} takes a file name, not - (standard output carries the records or the text report); give the page a file, e.g. ${names.flag} report.html`);
  await checkOutputFile(path, label, input, { ...names, what: 'the report' });
  if (output === undefined) return;
  const [page, records] = await Promise.all([path, output].map((p) => fs.stat(p).catch(() => undefined)));
  if (output === path || (page !== undefined && sameFile(page, records))) {
    throw new OutputError(`-o and ${names.flag} name the same file (${label}); the report would replace the records, so write it to another file`);
  }
}

/**
 * Refuses standard output that is the input file (`-i x.txt >> x.txt`, `< x.txt >> x.txt`): the
 * records would be read back as input rows, without end.
 */
export async function checkStdoutFile(fd: number, input: InputOrigin): Promise<void> {
  if (input.path === undefined && input.fd === undefined) return;
  const out = await statOf(fd).catch(() => undefined);
  if (out?.isFile() && sameFile(out, await inputStats(input))) {
    throw new OutputError('the input and standard output are the same file; the output would be read back as input, so write it to another file');
  }
}

/** The input's identity; undefined when it has none to compare (a pipe's descriptor still has one). */
async function inputStats(input: InputOrigin): Promise<Stats | undefined> {
  const found = input.path !== undefined ? fs.stat(input.path) : input.fd !== undefined ? statOf(input.fd) : undefined;
  return found?.catch(() => undefined);
}

// fs.fstat on the bare descriptor, not a FileHandle: a handle would close standard input when collected.
function statOf(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstat(fd, (err, stats) => (err ? reject(err) : resolve(stats))));
}

/** Same device and inode: one file, whatever the names (relative, `./`, symlink, hard link). */
function sameFile(a: Stats, b: Stats | undefined): boolean {
  return b !== undefined && a.dev === b.dev && a.ino === b.ino;
}
