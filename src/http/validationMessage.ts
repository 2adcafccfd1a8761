/**
 * The message of a 400 for a request its route schema refuses: "<part>.<field> <rule>", always
 * naming the field, in the schema's own words where it has them (requestSchema.ts RULE).
 */
import { NUL_FREE, NUL_RULE, PATH_SEGMENT, PATH_SEGMENT_RULE, RULE } from './requestSchema.js';

/** An ajv error, as the validators (verbose) report it. */
export interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** the schema holding the failed keyword (the validators run with ajv's verbose option) */
  parentSchema?: { description?: string; oneOf?: Branch[]; anyOf?: Branch[]; [key: string]: unknown };
}

interface Branch {
  required?: string[];
  properties?: Record<string, { const?: unknown; enum?: unknown[] }>;
}

/** Alternatives of a one-of- or any-of-required rule, e.g. "appointmentReference or seriesId"; null for another. */
function requiredAlternatives(issue: AjvIssue): string | null {
  const branches =
    issue.keyword === 'oneOf' || issue.keyword === 'anyOf' ? issue.parentSchema?.[issue.keyword] : undefined;
  if (!branches?.every((b) => Array.isArray(b.required) && b.required.length > 0)) return null;
  return branches.map((b) => b.required!.join(' and ')).join(' or ');
}

/** The values a discriminated `oneOf` takes for its tag, e.g. the question types. */
function tagValues(issue: AjvIssue, tag: string): string {
  return (issue.parentSchema?.oneOf ?? [])
    .flatMap((b) => b.properties?.[tag]?.enum ?? [b.properties?.[tag]?.const])
    .join(', ');
}

// keywords whose message ajv words well itself; every other one takes the schema's x-rule when it has one
const OWN_WORDS = new Set([
  'type',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'enum',
  'additionalProperties',
]);
// the conditions whose own failure only repeats what the failed branch said
const CONDITIONS = new Set(['if', 'anyOf', 'oneOf', 'allOf']);

function describeIssue(issue: AjvIssue, context: string): string {
  const path = issue.instancePath.split('/').filter(Boolean);
  const alternatives = requiredAlternatives(issue);
  const at = [context, ...path].join('.');
  if (alternatives)
    return `${at} must have ${issue.keyword === 'oneOf' ? 'exactly' : 'at least'} one of ${alternatives}`;
  if (issue.keyword === 'required' || issue.keyword === 'dependentRequired')
    path.push(String(issue.params.missingProperty));
  const field = [context, ...path].join('.');
  // x-rule: one text for the schema's rules, or texts by keyword (requestSchema.ts RULE)
  const rules = issue.parentSchema?.[RULE];
  const rule =
    typeof rules === 'string'
      ? OWN_WORDS.has(issue.keyword)
        ? undefined
        : rules
      : (rules as Record<string, string> | undefined)?.[issue.keyword];
  if (rule && issue.keyword === 'additionalProperties')
    return `${field}.${String(issue.params.additionalProperty)} ${rule}`;
  if (rule) return `${field} ${rule}`;
  switch (issue.keyword) {
    case 'required':
      return `${field} is required`;
    case 'dependentRequired':
      return `${field} is required when ${String(issue.params.property)} is given`;
    case 'additionalProperties':
      return `${field}.${String(issue.params.additionalProperty)} is not allowed`;
    case 'enum':
      return Array.isArray(issue.params.allowedValues)
        ? `${field} must be one of ${issue.params.allowedValues.join(', ')}`
        : `${field} is invalid`;
    case 'discriminator':
      return `${field}.${String(issue.params.tag)} must be one of ${tagValues(issue, String(issue.params.tag))}`;
    case 'pattern':
      if (issue.params.pattern === NUL_FREE) return `${field} ${NUL_RULE}`;
      if (issue.params.pattern === PATH_SEGMENT) return `${field} ${PATH_SEGMENT_RULE}`;
  }
  const hint =
    (issue.keyword === 'pattern' || issue.keyword === 'format') && issue.parentSchema?.description
      ? ` (${issue.parentSchema.description})`
      : '';
  return `${field} ${issue.message ?? 'is invalid'}${hint}`;
}

/** "body.email is required", "query.raster must be integer": always names the field. */
export function describeValidation(issues: AjvIssue[], context: string): string {
  // a one-of-required rule: one message for it, not one per alternative that is missing
  const alternatives = issues.find((issue) => requiredAlternatives(issue));
  if (alternatives) return describeIssue(alternatives, context);
  const rules = issues.filter((issue) => !CONDITIONS.has(issue.keyword));
  // a union's other branches only say "must be object", "must be null": the value's own branch says what is wrong
  const within = (inner: string, outer: string) => inner === outer || inner.startsWith(`${outer}/`);
  const own = rules.filter(
    (i) => i.keyword !== 'type' || !rules.some((o) => o.keyword !== 'type' && within(o.instancePath, i.instancePath)),
  );
  return (own.length > 0 ? own : issues)
    .slice(0, 5)
    .map((issue) => describeIssue(issue, context))
    .join('; ');
}

/** How a 400 names the part of the request: body, query, params, header. */
export const validationContext = (context: string | undefined) =>
  context === 'querystring' ? 'query' : context === 'headers' ? 'header' : (context ?? 'body');
