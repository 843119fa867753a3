// The options of a lookup(), bulk() or enrich() call, checked at run time against the lookups'
// descriptors: a plain JavaScript caller has no compiler to refuse `{ enhanced: 'yes' }` (taken
// as true) or `{ spam: true }` on lrn (an option of CNAM, silently dropped), and TypeScript's
// LookupOptions holds every lookup's options, so it lets the second through too.
import { BadOptionError } from '../core/errors.js';
import { LOOKUP_KINDS, LOOKUPS, type LookupKind } from '../core/lookups.js';
import { isObject } from '../core/json.js';
import { expected } from './expected.js';

/** The call's own options (BulkOptions beside the lookups' options), each with its check. */
const CALL_OPTIONS: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  validate: (v) => (typeof v === 'boolean' ? undefined : 'a boolean'),
  // What a run reads of it; not instanceof, which a signal of another realm would fail.
  signal: (v) => (isObject(v) && typeof v.aborted === 'boolean' && typeof v.addEventListener === 'function' ? undefined : 'an AbortSignal'),
  stats: (v) => (isObject(v) ? undefined : 'a RunStats object (newRunStats(Date.now()))'),
};

const list = (names: readonly string[]) => (names.length === 0 ? 'none' : names.join(', '));

/** Refuses an option none of `kinds` has, or one whose value is not a boolean; undefined is absent. */
export function checkCallOptions(kinds: readonly LookupKind[], options: unknown): void {
  if (options === undefined) return;
  if (!isObject(options)) throw expected('options', 'an object', options);
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const check = Object.hasOwn(CALL_OPTIONS, name) ? CALL_OPTIONS[name] : undefined;
    if (check) {
      const what = check(value);
      if (what !== undefined) throw expected(name, what, value);
      continue;
    }
    const owners = LOOKUP_KINDS.filter((k) => LOOKUPS[k].options.some((o) => o.name === name));
    if (!kinds.some((k) => owners.includes(k))) {
      const these = kinds.join(kinds.length === 2 ? ' and ' : ', ');
      if (owners.length > 0) throw new BadOptionError(`\`${name}\` is an option of ${owners.join(', ')}, not of ${these}`, 'drop it, or look up one that has it');
      const known = [...new Set(kinds.flatMap((k) => LOOKUPS[k].options.map((o) => o.name)))];
      throw new BadOptionError(`\`${name}\` is not an option of ${these} (${kinds.length === 1 ? 'its' : 'their'} options: ${list(known)}; and ${Object.keys(CALL_OPTIONS).join(', ')})`);
    }
    if (typeof value !== 'boolean') throw expected(name, 'a boolean (true or false)', value);
  }
}
