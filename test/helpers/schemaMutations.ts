/**
 * Invalid variants of a valid value, each breaking one keyword of its JSON Schema at one place:
 * a string over maxLength or under minLength, a NUL against a pattern, a value outside an enum, a
 * number past a bound, a required member left out, an unknown member where additionalProperties is
 * false, an array under minItems, a wrong type, a one-of-required rule with no alternative given.
 * The caller holds each variant to the schema (it must fail) before sending it.
 */
import type { ValidateFunction } from 'ajv';
import { NUL_FREE } from '../../src/http/requestSchema.js';
import type { Schema } from './schemaArbitrary.js';

export interface Mutation {
  /** where, as a 400 names it below its part: ['timeslots', '0', 'end'] */
  path: string[];
  keyword: string;
  /** the member names a one-of-required message lists instead of a path */
  names?: string[];
  apply: (value: unknown) => unknown;
}

type Part = 'body' | 'query' | 'param' | 'header';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A copy of `root` with the value at `path` replaced by what `change` makes of it (undefined: removed). */
function setAt(root: unknown, path: string[], change: (v: unknown) => unknown): unknown {
  if (path.length === 0) return change(root);
  const [head, ...rest] = path;
  const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<string, unknown>;
  const next = setAt(copy[head], rest, change);
  if (next === undefined) delete copy[head];
  else copy[head] = next;
  return copy;
}

function stringMutations(schema: Schema, value: string, part: Part): { keyword: string; to: unknown }[] {
  const out: { keyword: string; to: unknown }[] = [];
  const plain = schema.pattern === undefined || schema.pattern === NUL_FREE;
  if (typeof schema.maxLength === 'number' && plain)
    out.push({ keyword: 'maxLength', to: 'a'.repeat(schema.maxLength + 1) });
  if (typeof schema.minLength === 'number' && schema.minLength > 0 && plain && part !== 'param')
    out.push({ keyword: 'minLength', to: '' });
  if (schema.pattern !== undefined && part !== 'header')
    out.push({ keyword: 'pattern', to: `\u0000${[...value].slice(1).join('')}` });
  if (Array.isArray(schema.enum)) out.push({ keyword: 'enum', to: 'NOT_A_LISTED_VALUE' });
  if (part === 'body') out.push({ keyword: 'type', to: 12345 });
  return out;
}

/**
 * The mutations of `value` (valid for `schema`), found by walking both: object members, array items,
 * and the branch of an anyOf/oneOf the value takes (`validatorOf` tells).
 */
export function mutations(
  schema: Schema,
  value: unknown,
  part: Part,
  validatorOf: (s: Schema) => ValidateFunction,
  path: string[] = [],
): Mutation[] {
  const out: Mutation[] = [];
  const add = (keyword: string, to: (v: unknown) => unknown, names?: string[]) =>
    out.push({ path, keyword, apply: (root) => setAt(root, path, to), names });
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branch = (schema[key] as Schema[] | undefined)?.find(
      (b) => Object.keys(b).length > 1 && validatorOf(b)(value),
    );
    if (branch) out.push(...mutations(branch, value, part, validatorOf, path));
  }
  if (typeof value === 'string') {
    for (const m of stringMutations(schema, value, part)) add(m.keyword, () => m.to);
  } else if (typeof value === 'number') {
    if (typeof schema.minimum === 'number') add('minimum', () => (schema.minimum as number) - 1);
    if (typeof schema.maximum === 'number') add('maximum', () => (schema.maximum as number) + 1);
    if (part !== 'header') add('type', () => (part === 'body' ? 'seven' : 'seven'));
  } else if (typeof value === 'boolean') {
    add('type', () => (part === 'body' ? 'yes' : 'maybe'));
  } else if (Array.isArray(value)) {
    // a query sends no empty list: the parameter is left out instead
    if (typeof schema.minItems === 'number' && schema.minItems > 0 && part !== 'query') add('minItems', () => []);
    const items = schema.items as Schema | undefined;
    if (items && value.length > 0) out.push(...mutations(items, value[0], part, validatorOf, [...path, '0']));
  } else if (isObject(value)) {
    const props = (schema.properties as Record<string, Schema>) ?? {};
    for (const name of (schema.required as string[]) ?? [])
      if (name in value)
        out.push({
          path: [...path, name],
          keyword: 'required',
          apply: (root) => setAt(root, [...path, name], () => undefined),
        });
    if (schema.additionalProperties === false)
      add('additionalProperties', (v) => ({ ...(v as object), unexpectedMember: 1 }));
    const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    if (alternatives?.every((b) => Object.keys(b).length === 1 && Array.isArray(b.required))) {
      const names = alternatives.flatMap((b) => b.required as string[]);
      add(
        schema.oneOf ? 'oneOf' : 'anyOf',
        (v) => Object.fromEntries(Object.entries(v as object).filter(([k]) => !names.includes(k))),
        names,
      );
    }
    for (const [name, member] of Object.entries(value)) {
      if (props[name]) out.push(...mutations(props[name], member, part, validatorOf, [...path, name]));
    }
  }
  return out;
}
