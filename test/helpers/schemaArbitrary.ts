/**
 * fast-check arbitraries of the values a JSON Schema (2020-12, as the OpenAPI document holds it)
 * calls valid: what an integrator's generator would send. Every value drawn is checked against the
 * schema itself (ajv) before it is returned, so a value the server refuses is the server's doing.
 *
 * Keywords drawn from: type (and type lists), enum, const, string lengths, pattern (fc.stringMatching;
 * lookaheads are left out while drawing and checked after), the formats named in FORMATS (or the
 * caller's), number bounds, properties/required (an optional member half the time), additionalProperties
 * and propertyNames as a map's schema, items with minItems/maxItems/uniqueItems, anyOf/oneOf (one
 * branch, merged with the rest of the schema), allOf (merged), if/then/else whose `if` only requires
 * members (the then-branch requires them, the else-branch leaves them out), and at-most-one-per items
 * (`contains` with `maxContains: 1` on a member's const: the items are drawn unique by that member).
 * Any other keyword is held by the check alone.
 */
import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { REQUEST_FORMATS } from '../../src/http/requestSchema.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

export type Schema = Record<string, unknown>;
export type Formats = Record<string, fc.Arbitrary<string>>;

/** ajv as the server runs it (JSON Schema 2020-12, its formats), for the document's schemas. */
export function documentAjv(): Ajv2020 {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
  for (const [name, validate] of Object.entries(REQUEST_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}

const FORMATS: Formats = {
  uuid: fc.uuid(),
  email: fc.emailAddress({ size: 'xsmall' }),
};

const MAX_ITEMS = 3;

/** The regular expression without its lookaheads (fc.stringMatching draws no lookahead): drawn from, then checked. */
const withoutLookaheads = (pattern: string) => pattern.replace(/\(\?[=!](?:[^()\\]|\\.)*\)/g, '');

const isObject = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v);

/** Two schemas that must both hold, as one (enough for the document's combinations). */
function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (isObject(a.properties) || isObject(b.properties)) {
    const props: Schema = { ...(a.properties as Schema) };
    for (const [k, v] of Object.entries((b.properties as Schema) ?? {}))
      props[k] = props[k] ? merge(props[k] as Schema, v as Schema) : v;
    out.properties = props;
  }
  if (a.required || b.required)
    out.required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])];
  if (a.items && b.items) out.items = merge(a.items as Schema, b.items as Schema);
  return out;
}

/** `if` that only requires members: requiring(...) of src/http/requestSchema.ts. */
const requiredOnly = (cond: Schema) =>
  Array.isArray(cond.required) &&
  Object.keys(cond).every((k) => k === 'required' || k === 'properties') &&
  Object.values((cond.properties as Schema) ?? {}).every((p) => isObject(p) && Object.keys(p).length === 0);

/** The member whose value each item may take once (atMostOnePer), or null. */
function uniqueBy(schema: Schema): string | null {
  for (const item of (schema.allOf as Schema[]) ?? []) {
    const contains = item.contains as Schema | undefined;
    const member =
      contains &&
      Object.entries((contains.properties as Schema) ?? {}).find(([, p]) => isObject(p) && 'const' in p)?.[0];
    if (member && item.maxContains === 1) return member;
  }
  return null;
}

/** What keeps the schema's own keywords when a branch (anyOf/oneOf/allOf, if/then/else) is merged in. */
function strip(schema: Schema, ...keys: string[]): Schema {
  const out = { ...schema };
  for (const k of keys) delete out[k];
  return out;
}

function stringArbitrary(schema: Schema, formats: Formats): fc.Arbitrary<string> {
  const min = (schema.minLength as number) ?? 0;
  const max = (schema.maxLength as number) ?? 40;
  const format = schema.format as string | undefined;
  if (format && formats[format]) return formats[format];
  const pattern = schema.pattern as string | undefined;
  if (pattern && pattern !== '^[^\\u0000]*$') return fc.stringMatching(new RegExp(withoutLookaheads(pattern), 'u'));
  return fc
    .string({ unit: 'binary', minLength: min, maxLength: Math.min(max, min + 30) })
    .map((s) => s.replaceAll('\u0000', ' '));
}

function objectArbitrary(schema: Schema, formats: Formats, hints: Hints): fc.Arbitrary<unknown> {
  const props = (schema.properties as Record<string, Schema>) ?? {};
  const required = new Set((schema.required as string[]) ?? []);
  const extra = schema.additionalProperties;
  if (Object.keys(props).length === 0 && isObject(extra)) {
    const keys = isObject(schema.propertyNames) ? valueArbitrary(schema.propertyNames, formats, hints) : fc.string();
    return fc.dictionary(keys as fc.Arbitrary<string>, valueArbitrary(extra, formats, hints), {
      maxKeys: Math.min((schema.maxProperties as number) ?? MAX_ITEMS, MAX_ITEMS),
    });
  }
  const members = Object.fromEntries(Object.entries(props).map(([name, s]) => [name, hinted(name, s, formats, hints)]));
  return fc.record(members, { requiredKeys: [...required].filter((k) => k in members) });
}

function arrayArbitrary(schema: Schema, formats: Formats, hints: Hints): fc.Arbitrary<unknown[]> {
  const items = (schema.items as Schema) ?? {};
  const minLength = (schema.minItems as number) ?? 0;
  const maxLength = Math.max(minLength, Math.min((schema.maxItems as number) ?? MAX_ITEMS, MAX_ITEMS));
  const by = uniqueBy(schema);
  const item = valueArbitrary(items, formats, hints);
  if (by) return fc.uniqueArray(item, { minLength, maxLength, selector: (v) => (v as Schema)[by] });
  if (schema.uniqueItems) return fc.uniqueArray(item, { minLength, maxLength, comparator: 'IsStrictlyEqual' });
  return fc.array(item, { minLength, maxLength });
}

/** Values the test knows to exist (a provider's reference, ...), by member or parameter name. */
export type Hints = Record<string, unknown[]>;

const validators = new WeakMap<Schema, ValidateFunction>();
let ajv: Ajv2020 | null = null;
function validatorOf(schema: Schema): ValidateFunction {
  let v = validators.get(schema);
  if (!v) {
    ajv ??= documentAjv();
    v = ajv.compile(schema);
    validators.set(schema, v);
  }
  return v;
}

/** A member named in `hints`: half the time one of the known values that the schema takes. */
function hinted(name: string, schema: Schema, formats: Formats, hints: Hints): fc.Arbitrary<unknown> {
  const own = valueArbitrary(schema, formats, hints);
  const known = (hints[name] ?? []).filter((v) => validatorOf(schema)(v));
  return known.length > 0 ? fc.oneof(fc.constantFrom(...known), own) : own;
}

/** Branch `i` of a one-of-required rule, without the members only the other branches require. */
function alternative(schema: Schema, branches: Schema[], i: number): Schema {
  const others = branches.flatMap((b, j) => (j === i ? [] : ((b.required as string[]) ?? [])));
  const props = Object.fromEntries(
    Object.entries((schema.properties as Schema) ?? {}).filter(([k]) => !others.includes(k)),
  );
  return merge({ ...schema, properties: props }, branches[i]);
}

function drawn(schema: Schema, formats: Formats, hints: Hints): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key] as Schema[] | undefined;
    if (!branches) continue;
    const rest = strip(schema, key);
    const requiredOnlyBranches = branches.every((b) => Object.keys(b).length === 1 && Array.isArray(b.required));
    return fc.oneof(
      ...branches.map((b, i) =>
        drawn(
          requiredOnlyBranches && key === 'oneOf' ? alternative(rest, branches, i) : merge(rest, b),
          formats,
          hints,
        ),
      ),
    );
  }
  const allOf = ((schema.allOf as Schema[]) ?? []).filter((s) => !('contains' in s));
  if (allOf.length > 0) {
    const conditions = allOf.filter((s) => isObject(s.if) && requiredOnly(s.if as Schema));
    let base: Schema = { ...schema, allOf: (schema.allOf as Schema[]).filter((s) => 'contains' in s) };
    for (const s of allOf.filter((s) => !('if' in s))) base = merge(base, s);
    if (conditions.length === 0) return drawn(base, formats, hints);
    // one condition is enough for the document (D6); more would multiply the branches
    const [c] = conditions;
    const names = (c.if as Schema).required as string[];
    const yes = merge(merge(base, { required: names }), (c.then as Schema) ?? {});
    const no = merge(base, (c.else as Schema) ?? {});
    const without = {
      ...no,
      properties: Object.fromEntries(
        Object.entries((no.properties as Schema) ?? {}).filter(([k]) => !names.includes(k)),
      ),
    };
    return fc.oneof(drawn(yes, formats, hints), drawn(without, formats, hints));
  }
  const types = [schema.type ?? (schema.properties ? 'object' : undefined)].flat().filter(Boolean) as string[];
  if (types.length > 1) return fc.oneof(...types.map((type) => drawn({ ...schema, type }, formats, hints)));
  switch (types[0]) {
    case 'string':
      return stringArbitrary(schema, formats);
    case 'integer':
      return fc.integer({ min: (schema.minimum as number) ?? -1000, max: (schema.maximum as number) ?? 100_000 });
    case 'number':
      return fc.double({
        min: (schema.minimum as number) ?? -1e6,
        max: (schema.maximum as number) ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'object':
      return objectArbitrary(schema, formats, hints);
    case 'array':
      return arrayArbitrary(schema, formats, hints);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** Values the schema calls valid (drawn, then held to the schema). */
export function valueArbitrary(schema: Schema, formats: Formats = {}, hints: Hints = {}): fc.Arbitrary<unknown> {
  const validate = validatorOf(schema);
  return drawn(schema, { ...FORMATS, ...formats }, hints).filter((v) => validate(v));
}
