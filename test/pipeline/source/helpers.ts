// Shared by the source tests: a fake world around openSource and a way to drain items.
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { expect } from 'vitest';
import { NumintelError } from '../../../src/core/errors.js';
import type { SourceItem } from '../../../src/core/run.js';
import type { SourceIO } from '../../../src/pipeline/source/source.js';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/csv/', import.meta.url));

/** A stdin that is a pipe (not a terminal) holding `text`, ended. */
export function pipedStdin(text = ''): PassThrough {
  const stdin = new PassThrough();
  stdin.end(text);
  return stdin;
}

export function terminalStdin(): PassThrough & { isTTY: boolean } {
  return Object.assign(new PassThrough(), { isTTY: true });
}

export function io(overrides: Partial<SourceIO> = {}): SourceIO {
  return { stdin: terminalStdin(), cwd: FIXTURES, ...overrides };
}

export async function collect(items: AsyncIterable<SourceItem>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export const inputs = (items: readonly SourceItem[]) => items.map((i) => i.input);

/** Awaits a rejection and checks it is a usage error (exit 2). */
export async function usageFailure(promise: Promise<unknown>): Promise<NumintelError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NumintelError);
  expect((err as NumintelError).kind).toBe('usage');
  return err as NumintelError;
}
