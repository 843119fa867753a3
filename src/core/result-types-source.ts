// The TypeScript of each lookup's result, written from the descriptors (src/core/result-types.ts is
// this text, committed; test/core/result-types.test.ts fails when it is stale, and
// `node scripts/result-types.js` writes it again).
import { LOOKUP_KINDS, LOOKUPS, type FieldSpec } from './lookups.js';

const TS_TYPE = { string: 'string', boolean: 'boolean', integer: 'number' } as const;
const pascal = (s: string) => s.replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase());

function fieldLine(f: FieldSpec, typeName: string): string {
  // Known values named, any other string still accepted: `(string & {})` keeps the names in editors' completions.
  const known = f.known?.length ? `${f.known.map((v) => `'${v}'`).join(' | ')} | (string & {})` : undefined;
  const base = f.type === 'object' ? typeName : (known ?? TS_TYPE[f.type as keyof typeof TS_TYPE]);
  // An object field is present only when its option is on, and the service may send null.
  const optional = f.option ? '?' : '';
  const nullable = f.nullable || f.type === 'object' ? ' | null' : '';
  return `  ${f.name}${optional}: ${base}${nullable};`;
}

export function resultTypesSource(): string {
  const out: string[] = [
    '// Generated from the lookup descriptors (src/core/lookups.ts) by src/core/result-types-source.ts:',
    '// `node scripts/result-types.js` writes it again. Do not edit by hand.',
    '',
  ];
  const names: string[] = [];
  const options: string[] = [];
  for (const kind of LOOKUP_KINDS) {
    const d = LOOKUPS[kind];
    const name = `${pascal(kind)}Result`;
    names.push(`  ${kind}: ${name};`);
    // No options: Record<never, never>, so that any option given is an excess property.
    options.push(`  ${kind}: ${d.options.length ? `{${d.options.map((o) => ` ${o.name}?: boolean;`).join('')} }` : 'Record<never, never>'};`);
    const nested: string[] = [];
    const lines = d.fields.map((f) => {
      if (f.type !== 'object') return fieldLine(f, '');
      const sub = pascal(f.graphqlType ?? f.name);
      nested.push(`/** ${d.title}: \`${f.name}\` (with --${d.options.find((o) => o.name === f.option)?.flag ?? ''}). */`, `export type ${sub} = {`, ...(f.fields ?? []).map((s) => fieldLine(s, '')), '};', '');
      return fieldLine(f, sub);
    });
    // Type aliases, not interfaces: an interface has no index signature, so a typed record would
    // not be assignable to the LookupRecord / EnrichRecord (Result = Record<string, unknown>) it is.
    out.push(...nested, `/** The result of one ${d.title} lookup, as the service sends it (envelope removed). */`, `export type ${name} = {`, ...lines, '};', '');
  }
  out.push('/** Each lookup kind\'s result type. */', 'export interface ResultOf {', ...names, '}', '');
  out.push("/** Each lookup kind's options: another lookup's option is a type error. */", 'export interface OptionsOf {', ...options, '}', '');
  return out.join('\n');
}
