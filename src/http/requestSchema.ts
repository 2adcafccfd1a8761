/**
 * The conventions of request schemas: one truth per rule (issue 57). The route schemas validate
 * every request and are also what /openapi.json publishes, so a rule on a request's form lives in
 * its route schema and nowhere else. Follow these when adding an operation:
 *
 * 1. NUL-free text. PostgreSQL text cannot hold U+0000. `applyRequestConventions` gives every string
 *    of a request schema (params, query, headers, body) without a `pattern`, `enum` or `const` of its
 *    own the pattern NUL_FREE when the route is registered, so the document shows it and the
 *    validator applies it. A string with its own pattern must leave out U+0000 itself (every pattern
 *    here does: a character class without it). Members a schema does not name are ignored, never read.
 * 2. Path parameters: `PathSegment` (1..255 characters: percent-encoded, always within the router's
 *    limit of a segment), `CrmPath`/`ProviderPath` for the operations under /crms/{crmId}, and
 *    `LinkToken` for the signed tokens of links. A path parameter without a pattern of its own gets
 *    PATH_SEGMENT instead of NUL_FREE: a segment `.` or `..` never arrives (URLs resolve them away).
 * 3. Texts: `Text(max)` is 1..max characters (a partner's reference: `Text(255)`), `OptionalText(max)`
 *    0..max. Blank-but-not-empty is a value unless the operation trims it: then `NonBlank`.
 * 4. Times: `IsoDateTime` (format `iso-date-time` and a pattern that admits real dates only, see
 *    scheduling/time.ts), never a plain string. Without an offset: wall clock in the provider's zone.
 * 5. URLs: `HttpUrl` (net/destination.ts's pattern: every URL of that form parses).
 * 6. Combinations of members: `exactlyOneOf`, `atLeastOneOf` (for bodies and, through `QueryObject`,
 *    for queries), `requiredWhenGiven` (a member needs another), `atMostOnePer` (one item per value of
 *    a member), a discriminated `oneOf` (ajv's `discriminator`) for variants, and `if`/`then`/`else` on
 *    `requiring(...)` for members required in one form only. ajv runs JSON Schema 2020-12, the
 *    dialect of OpenAPI 3.1 (http/validation.ts).
 * 7. Rules across query parameters: OpenAPI parameters are independent, so a query schema with a
 *    combination is wrapped by `QueryObject(name, schema)`: the document shows it as one object
 *    parameter serialized as form/explode (`?email=...`), which is what the server reads. A repeated
 *    parameter (an array) has minItems 1: a query cannot send an empty list.
 * 8. How a 400 words a rule: "<field> <ajv's message>", or the schema's `x-rule` (RULE): a text for
 *    its pattern, format or combination, or texts by keyword ({ additionalProperties: '...' }); the
 *    document drops `x-rule` (http/validationMessage.ts).
 * 9. What JSON Schema cannot say (a member equal to the path's, one value after another, a value that
 *    must exist in the database) is a domain check whose 400 names the field, and the operation's
 *    description says it in words through `beyondSchema(...)`. test/integration/openapi-generated.test.ts
 *    lists each such rule; every other valid request the document describes must not get a 400.
 */
import { Type, type TProperties, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { urlPattern } from '../net/destination.js';
import { ISO_DATE_TIME_PATTERN, ISO_DATE_TIME_RULE, isIsoDateTime } from '../scheduling/time.js';

/**
 * `x-rule` on a schema: how a 400 words the rule it breaks ("<field> <rule>"), one text or texts by
 * keyword. Not part of the document.
 */
export const RULE = 'x-rule';

/**
 * Keywords for the validator alone, which the document leaves out: `x-rule`, and ajv's `discriminator`
 * (it picks the variant of a `oneOf` to report on; the variants say the same without it, and OpenAPI
 * wants a discriminator's variants as references).
 */
export const VALIDATOR_ONLY = [RULE, 'discriminator'];

/** Every request string without a pattern of its own gets this one. */
export const NUL_FREE = '^[^\\u0000]*$';
export const NUL_RULE = 'must not contain NUL characters';

/** A path segment that arrives as sent: NUL-free, and neither `.` nor `..` (which a URL resolves away). */
export const PATH_SEGMENT = '^(?:[^.\\u0000]|\\.[^.\\u0000]|\\.\\.[^\\u0000])[^\\u0000]*$';
export const PATH_SEGMENT_RULE = 'must not contain NUL characters, nor be . or .. (a URL resolves those away)';

/** At least one character other than white space (and no NUL). */
export const NON_BLANK = '^\\s*[^\\s\\u0000][^\\u0000]*$';

/** The custom formats of request strings, for the validator (http/validation.ts). */
export const REQUEST_FORMATS: Record<string, (value: string) => boolean> = { 'iso-date-time': isIsoDateTime };

type Options = { description?: string; [key: string]: unknown };
const described = (description?: string) => (description ? { description } : {});

/**
 * A path parameter: 1..255 characters (references are, ids are shorter). Percent-encoded (at most 12
 * characters each) it always fits the router's 4096 characters of a segment (http/errors.ts
 * MAX_PARAM_LENGTH), so no value the document calls valid is refused before routing.
 */
export const PathSegment = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, ...described(description) });
/** The path parameters of an operation under /crms/{crmId}: crmId and `params`. */
export const CrmPath = <P extends TProperties>(params: P) => Type.Object({ crmId: PathSegment(), ...params });
/** The path parameters of an operation under /crms/{crmId}/provider/{providerRef}: those and `params`. */
export const ProviderPath = <P extends TProperties>(params: P) => CrmPath({ providerRef: PathSegment(), ...params });
/** The signed token of a link (the cancel and decision links): `<uuid>.<base64url>`. */
export const LinkToken = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 512,
    pattern: '^[A-Za-z0-9_-][A-Za-z0-9_.-]*$',
    description,
    [RULE]: 'must be the token of a link (letters, digits, _ . and -, not starting with .)',
  } as Options);

/** A required text of 1..max characters. */
export const Text = (max = 255, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, ...described(description) });
/** A text of 0..max characters. */
export const OptionalText = (max = 255, description?: string) =>
  Type.String({ maxLength: max, ...described(description) });
/** A text that is more than white space (for members the server trims). */
export const NonBlank = (max: number, description?: string) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: NON_BLANK,
    ...described(description),
    [RULE]: 'must not be empty or only white space',
  } as Options);

/**
 * A request time: ISO 8601 date or date-time, to the minute or finer, in the years 1901 to 9998;
 * without an offset a wall-clock time in the provider's zone, with Z or an offset an exact instant.
 */
export const IsoDateTime = (description: string, maxLength = 64) =>
  Type.String({
    minLength: 1,
    maxLength,
    format: 'iso-date-time',
    pattern: ISO_DATE_TIME_PATTERN,
    description,
    [RULE]: ISO_DATE_TIME_RULE,
  } as Options);

/** "a, b or c" */
const orList = (words: readonly string[]) =>
  words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words.join('');

/** An absolute URL with one of `schemes` (http and https by default), at most `max` characters. */
export const HttpUrl = (description: string, max: number, schemes: readonly string[] = ['http', 'https']) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    format: 'uri',
    pattern: urlPattern(schemes),
    description,
    [RULE]:
      `must be an absolute ${orList(schemes)} URL: a host name, IPv4 or [IPv6] address, ` +
      'then an RFC 3986 path and query',
  } as Options);

/** A plain string enum: its 400 lists the allowed values ("must be one of ..."). */
export const StringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...described(description) });

const list = (names: readonly string[], word: string) => names.join(` ${word} `);

/** Object options: exactly one of the members (each alternative names one member). */
export const exactlyOneOf = (...names: string[]) => ({
  oneOf: names.map((n) => ({ required: [n] })),
  description: `exactly one of ${list(names, 'and')}`,
});
/** Object options: at least one of the members. */
export const atLeastOneOf = (...names: string[]) => ({
  anyOf: names.map((n) => ({ required: [n] })),
  description: `at least one of ${list(names, 'or')}`,
});

/**
 * A condition or branch that requires members (for `if`/`then`/`else`): the members are named in
 * `properties` too (as `{}`, their schema being the object's own), as linters of the document ask.
 */
export const requiring = (...names: string[]) => ({
  required: names,
  properties: Object.fromEntries(names.map((n) => [n, {}])),
});

/**
 * An `allOf` item: `needed` must be given (and not null) whenever `member` is given and not null,
 * e.g. requiredWhenGiven('contactProfileReference', 'contact').
 */
export const requiredWhenGiven = (member: string, needed: string) => {
  const rule = `is required when ${member} is given`;
  return {
    if: { properties: { [member]: { not: { type: 'null' } } }, required: [member] },
    then: { properties: { [needed]: { not: { type: 'null' }, [RULE]: rule } }, required: [needed], [RULE]: rule },
  };
};

/**
 * `allOf` items: at most one array item per value of `member`, e.g. one contact channel per type.
 * `rule` words the 400 for one value ("has more than one channel of type link").
 */
export const atMostOnePer = (member: string, values: readonly string[], rule: (value: string) => string) =>
  values.map((value) => ({
    contains: { type: 'object', properties: { [member]: { const: value } }, required: [member] },
    minContains: 0,
    maxContains: 1,
    [RULE]: rule(value),
  }));

/**
 * preValidation of an operation whose body may be left out (openapi.ts BODY_OPTIONAL): no body at all
 * is taken as {}, while a JSON `null` stays null and is refused like any body that is not an object.
 */
export async function noBodyAsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) request.body = {};
}

/** The marker of a query schema the document shows as one form/explode object parameter. */
export const QUERY_OBJECT = 'x-query-object';

/**
 * A query schema with a rule across its parameters (`exactlyOneOf`, `atLeastOneOf`): validated as
 * it is, and shown in the document as the object parameter `name` (style form, explode true), the
 * one way OpenAPI can state such a rule. Clients send the members as plain query parameters.
 */
export const QueryObject = <T extends TSchema>(name: string, schema: T): T => ({ ...schema, [QUERY_OBJECT]: name });

/**
 * An operation's description with its rules beyond the schema, in words: each one is a 400 that
 * names the field. `lead` is the rest of the description.
 */
export function beyondSchema(lead: string, ...rules: string[]): string {
  return [lead, `Checked beyond the schema (400 naming the field): ${rules.join('; ')}.`].filter(Boolean).join(' ');
}

type Json = Record<string, unknown>;
// where a subschema constrains the value itself; `not`, `if` and `contains` are conditions, left as they are
const NESTED = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
const SINGLE = ['items', 'additionalProperties', 'propertyNames', 'then', 'else', 'unevaluatedProperties'];
const ARRAYS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

/**
 * A copy of a request schema whose strings without a pattern, enum or const get `pattern`
 * (NUL_FREE; PATH_SEGMENT for path parameters).
 */
export function nulFree(schema: unknown, pattern = NUL_FREE): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const copy: Json = { ...(schema as Json) };
  const types = [copy.type].flat();
  if (types.includes('string') && copy.pattern === undefined && copy.enum === undefined && copy.const === undefined) {
    copy.pattern = pattern;
  }
  const inner = (value: unknown) => nulFree(value, pattern);
  for (const key of NESTED) {
    const members = copy[key];
    if (members && typeof members === 'object') {
      copy[key] = Object.fromEntries(Object.entries(members).map(([k, v]) => [k, inner(v)]));
    }
  }
  for (const key of SINGLE) if (copy[key] && typeof copy[key] === 'object') copy[key] = inner(copy[key]);
  for (const key of ARRAYS) if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(inner);
  return copy;
}

const REQUEST_PARTS = ['params', 'querystring', 'headers', 'body'] as const;

/**
 * Registers the conventions that apply themselves on every route registered after: NUL-free request
 * strings, path parameters that arrive as sent.
 */
export function applyRequestConventions(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema) return;
    const schema = { ...route.schema } as Json;
    for (const part of REQUEST_PARTS) {
      if (schema[part]) schema[part] = nulFree(schema[part], part === 'params' ? PATH_SEGMENT : NUL_FREE);
    }
    route.schema = schema;
  });
}

/** @fastify/swagger's `transform`: a QueryObject query becomes one object parameter of that name. */
export function documentQueryObjects({ schema, url }: { schema: Json; url: string }): { schema: Json; url: string } {
  const query = schema?.querystring as Json | undefined;
  const name = query?.[QUERY_OBJECT];
  if (typeof name !== 'string') return { schema, url };
  const { [QUERY_OBJECT]: _marker, ...inner } = query!;
  const wrapped = { type: 'object', style: 'form', explode: true, required: [name], properties: { [name]: inner } };
  return { schema: { ...schema, querystring: wrapped }, url };
}
