// --fields as a run and its dry run take it: an unknown name is refused (exit 2) before anything is
// read or sent, and a lookup of enrich it names no field of is said once, since it is still paid for.
import { parseFields, unusedLookupsWarning, type FieldSelection } from '../output/fields.js';
import type { RunRequest } from './run-request.js';
import type { World } from './world.js';

export function fieldsFlag(req: RunRequest, world: World): FieldSelection | undefined {
  if (req.fields === undefined) return undefined;
  const fields = parseFields(req.fields, req.lookups, req.options, req.mode === 'enrich');
  // A lookup command names its one lookup: `--fields input,number` asks for no result field, knowingly.
  const unused = req.mode === 'enrich' ? unusedLookupsWarning(fields, req.lookups) : undefined;
  if (unused) world.stderr.write(`numintel: warning: ${unused}\n`);
  return fields;
}
