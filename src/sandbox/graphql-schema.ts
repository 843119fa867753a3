// The GraphQL schema, built from the lookup descriptors (fields, GraphQL names and types, option
// arguments) rather than written by hand, so the schema cannot drift from what REST answers.
import {
  GraphQLBoolean,
  GraphQLError,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLOutputType,
} from 'graphql';
import { LOOKUP_KINDS, LOOKUPS, type FieldSpec, type LookupDescriptor, type OptionName } from '../core/lookups.js';
import { PAYMENT_REQUIRED_MESSAGE } from './bodies.js';
import { acceptNumber, type SandboxEngine } from './engine.js';
import type { KeyState } from './keys.js';

/** Per-request state the resolvers share. */
export interface GraphqlContext {
  readonly engine: SandboxEngine;
  readonly key: KeyState;
  /** Set when a lookup was refused for quota: the whole answer becomes a 402. */
  paymentRequired: boolean;
}

const SCALARS = { string: GraphQLString, boolean: GraphQLBoolean, integer: GraphQLInt } as const;

function objectType(name: string, fields: readonly FieldSpec[]): GraphQLObjectType {
  return new GraphQLObjectType({
    name,
    fields: () => Object.fromEntries(fields.map((f) => [f.graphqlName, fieldConfig(f)])),
  });
}

function fieldConfig(f: FieldSpec): GraphQLFieldConfig<Record<string, unknown>, GraphqlContext> {
  let type: GraphQLOutputType;
  if (f.type === 'object') type = objectType(f.graphqlType ?? f.name, f.fields ?? []);
  else type = SCALARS[f.type];
  // Optional parts (sub-objects, option-gated fields) and nullable fields are nullable.
  if (f.type !== 'object' && !f.nullable && !f.option) type = new GraphQLNonNull(type);
  return { type, resolve: (src) => src[f.name] ?? null };
}

function lookupField(d: LookupDescriptor): GraphQLFieldConfig<unknown, GraphqlContext> {
  const args: GraphQLFieldConfigArgumentMap = { phoneNumber: { type: new GraphQLNonNull(GraphQLString) } };
  for (const o of d.options) args[o.graphqlArg] = { type: GraphQLBoolean, description: o.description };
  return {
    type: objectType(d.graphqlType, d.fields),
    description: `${d.title} lookup (REST: POST ${d.restPath})`,
    args,
    resolve: (_src, a: Record<string, unknown>, ctx) => {
      const number = acceptNumber(d.kind, String(a.phoneNumber));
      if (number === undefined) {
        ctx.engine.stats.count('invalid');
        throw new GraphQLError(`Invalid phone number format: phoneNumber ${d.numbers.rule}`, {
          extensions: { code: 'INVALID_NUMBER' },
        });
      }
      if (!ctx.engine.bill(d.kind, ctx.key, number)) {
        ctx.paymentRequired = true;
        throw new GraphQLError(PAYMENT_REQUIRED_MESSAGE, { extensions: { code: 'PAYMENT_REQUIRED' } });
      }
      const opts: Partial<Record<OptionName, boolean>> = {};
      for (const o of d.options) if (a[o.graphqlArg] === true) opts[o.name] = true;
      return ctx.engine.result(d.kind, number, opts);
    },
  };
}

export function buildLookupSchema(lookups: readonly LookupDescriptor[] = LOOKUP_KINDS.map((k) => LOOKUPS[k])): GraphQLSchema {
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: () => Object.fromEntries(lookups.map((d) => [d.graphqlField, lookupField(d)])),
    }),
  });
}
