// Reading the API key from where a secret may come from: a file, piped stdin, a hidden prompt.
// Files are read as bounded streams: never more than one byte past the cap.
import { unlessInterrupted } from '../core/interruptible.js';
import { resolve } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { InputError, InterruptedError, NoApiKeyError } from '../core/errors.js';
import { openInput } from '../pipeline/source/fifo.js';

/** More than any key; stops `numintel config set api-key < big.iso` from filling memory. */
const MAX_SECRET_BYTES = 64 * 1024;

/** A file ends with a newline by convention; that one is not part of the key. */
export function trimOneNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** All of a stream as text, bounded. */
export async function readSecretStream(stream: Readable, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_SECRET_BYTES) throw new InputError(`${what} is larger than ${MAX_SECRET_BYTES} bytes: not an API key`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Where to ask for the key when standard input is a terminal. */
export interface KeyPrompt {
  readonly output: NodeJS.WritableStream;
  readonly signal?: AbortSignal | undefined;
}

export const KEY_QUESTION = 'API key (input hidden): ';

/**
 * The `readApiKeyFile` for resolveSettings: `-` reads `stdin`, anything else is a path from `cwd`.
 * With `prompt`, a terminal on stdin is asked through a hidden prompt instead of read to its end,
 * which would show the key on the screen as it is typed.
 */
export function apiKeyFileReader(stdin: () => Readable & { isTTY?: boolean }, cwd: string, prompt?: KeyPrompt): (pathOrDash: string) => Promise<string> {
  return async (pathOrDash) => {
    if (pathOrDash !== '-') {
      // A regular file, of which at most one byte past the cap is read (a 400 MB file is refused,
      // not loaded), or a pipe (`--api-key-file <(pass show …)`), read on the event loop and
      // bounded alike; a device (/dev/zero) or a directory is refused before it is read.
      let file: Readable | undefined;
      const reading = openInput(resolve(cwd, pathOrDash), { end: MAX_SECRET_BYTES, fileOrPipe: true }).then((f) => readSecretStream((file = f), pathOrDash));
      return unlessInterrupted(reading, prompt?.signal, () => file?.destroy(), 'reading the API key');
    }
    const input = stdin();
    if (prompt && input.isTTY === true) return (await readHiddenLine(input, prompt.output, KEY_QUESTION, prompt.signal)).trim();
    return unlessInterrupted(readSecretStream(input, 'standard input'), prompt?.signal, () => undefined, 'reading the API key');
  };
}

/**
 * Asks on `output` and reads one line from a terminal `input` without echoing it: readline (in
 * terminal mode, so the tty is raw and does not echo by itself) writes its echo to a sink.
 */
export async function readHiddenLine(
  input: Readable,
  output: NodeJS.WritableStream,
  question: string,
  signal?: AbortSignal,
): Promise<string> {
  // Loaded here: only `config set api-key` at a terminal needs it, not every start-up.
  const { createInterface } = await import('node:readline');
  const echo = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input, output: echo, terminal: true });
  return new Promise<string>((resolve, reject) => {
    const finish = (settle: () => void) => {
      signal?.removeEventListener('abort', stop);
      rl.removeAllListeners();
      rl.close();
      settle();
    };
    // The cursor is still after the question: the message that follows starts its own line.
    const stop = () =>
      finish(() => {
        output.write('\n');
        reject(new InterruptedError('interrupted while reading the API key'));
      });
    if (signal?.aborted) return stop();
    signal?.addEventListener('abort', stop, { once: true });
    // In raw mode Ctrl-C arrives here rather than as a signal.
    rl.once('SIGINT', stop);
    // Ctrl-Z too. Left to readline, it turns the terminal's echo back on and asks to be suspended;
    // where nothing can suspend the process (no job control: a script, `script -c`, a wrapper)
    // the prompt then goes on reading while the rest of the key shows on the screen.
    rl.once('SIGTSTP', stop);
    rl.once('close', () => finish(() => reject(new NoApiKeyError('no API key was entered'))));
    rl.once('line', (line) =>
      finish(() => {
        output.write('\n');
        resolve(line);
      }),
    );
    // Listeners first: an answer already waiting in the input may arrive as soon as we ask.
    output.write(question);
  });
}
