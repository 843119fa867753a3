// The value `numintel config set` stores: the secret read from a prompt or a pipe, any other value
// from the command line, each checked before it is stored.
import { resolve } from 'node:path';
import { NoApiKeyError, UsageError } from '../core/errors.js';
import { settingToStore, type SettingSpec } from '../settings/known-settings.js';
import { apiKeyFileReader, trimOneNewline } from '../settings/secret-input.js';
import { checkBaseUrl } from '../api/base-url.js';
import { readCaFile } from './connection.js';
import type { World } from './world.js';

export async function valueToSet(world: World, spec: SettingSpec, value: string | undefined) {
  if (spec.secret) {
    if (value !== undefined) {
      throw new UsageError(
        `the ${spec.name} is never taken from the command line (it would stay in your shell history and process list)`,
        `run \`numintel config set ${spec.name}\` to be asked for it, or pipe it in: \`printf %s "$KEY" | numintel config set ${spec.name}\`; consider replacing the key you typed`,
      );
    }
    const { raw, origin } = await readApiKey(world);
    return settingToStore(spec, raw, origin);
  }
  if (value === undefined) {
    throw new UsageError(`config set ${spec.name} needs a value`, `${spec.name} must be ${spec.expects}`);
  }
  const parsed = settingToStore(spec, value, 'the command line');
  // A CA file is read at each run; one that cannot serve is refused now, not at the first HTTPS
  // lookup. (NUMINTEL_CA_FILE and --ca-file are read at run time and checked there.)
  if (spec.property === 'caFile') {
    await readCaFile(String(parsed), 'config', world.cwd).catch((err: unknown) => {
      throw new UsageError(`ca-file not set: ${err instanceof Error ? err.message : String(err)}`);
    });
    // Stored as the file just checked: a relative path would be read from each later run's
    // working directory, where it may name nothing.
    return resolve(world.cwd, String(parsed));
  }
  // Every lookup sends the key, and a run refuses to send it over plain http:// off loopback: such
  // a base URL is refused now, with the same words, not stored for every later run to fail on.
  if (spec.property === 'baseUrl') checkBaseUrl(String(parsed), true);
  return parsed;
}

/** The secret comes from a hidden prompt at a terminal, or from whatever is piped in. */
async function readApiKey(world: World): Promise<{ raw: string; origin: string }> {
  // As `--api-key-file -` reads it: a hidden prompt at a terminal, else the pipe, both ended by Ctrl-C.
  const read = apiKeyFileReader(() => world.stdin, world.cwd, { output: world.stderr, signal: world.interrupt });
  if (world.stdin.isTTY) {
    const line = await read('-');
    // Enter alone at the prompt: say so, as for an empty pipe (not "invalid api-key").
    if (line === '') throw new NoApiKeyError('no API key typed at the prompt', 'run it again and type or paste the key, then Enter');
    return { raw: line, origin: 'the prompt' };
  }
  const raw = trimOneNewline(await read('-'));
  if (raw === '') {
    throw new NoApiKeyError('no API key on standard input', 'pipe it in: `printf %s "$KEY" | numintel config set api-key`');
  }
  return { raw, origin: 'standard input' };
}
