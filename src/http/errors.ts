import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode } from '../errors.js';
import { RULE } from './reply.js';

/** The one table from domain codes to HTTP: status and the errorCode on the wire. */
const ERROR_TABLE: Record<ErrorCode, { status: number; wire?: string }> = {
  VALIDATION: { status: 400 },
  NOT_FOUND: { status: 404 },
  UNAUTHORIZED: { status: 401 },
  FORBIDDEN: { status: 403 },
  CONFLICT: { status: 409 },
  DUPLICATE: { status: 409 },
  CAPACITY_EXHAUSTED: { status: 409 },
  INVALID_TRANSITION: { status: 409 },
  AppointmentAlreadyBookedException: { status: 409 },
  SLOT_TAKEN: { status: 412, wire: '201' },
  HOLD_LIMIT: { status: 429 },
  TOO_LATE: { status: 409 },
  PAYLOAD_TOO_LARGE: { status: 413 },
  RATE_LIMITED: { status: 429 },
  BOOKING_WINDOW: { status: 412 },
  BOOKING_LIMIT: { status: 412 },
  CONSUMER_LIMIT: { status: 409 },
  CANCEL_NOTICE: { status: 409 },
  IDEMPOTENCY_KEY_REUSED: { status: 422 },
  IDEMPOTENCY_KEY_IN_USE: { status: 409 },
  CALENDAR_UNREADABLE: { status: 422 },
  CALENDAR_URL_NOT_ALLOWED: { status: 400 },
};

export function errorBody(errorCode: string, message: string) {
  return { 'api-info': { version: '1' }, errors: [{ errorCode, message }] };
}

export function statusOf(code: ErrorCode): number {
  return ERROR_TABLE[code].status;
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** the schema holding the failed keyword (the validators run with ajv's verbose option) */
  parentSchema?: { description?: string; oneOf?: { required?: string[] }[]; [key: string]: unknown };
}

/** Alternatives of a one-of-required rule, e.g. "appointmentReference or seriesId"; null for another oneOf. */
function requiredAlternatives(issue: AjvIssue): string | null {
  const branches = issue.parentSchema?.oneOf;
  if (!branches?.every((b) => Array.isArray(b.required) && b.required.length > 0)) return null;
  return branches.map((b) => b.required!.join(' and ')).join(' or ');
}

/** "body.email is required", "query.raster must be integer": always names the field. */
export function describeValidation(issues: AjvIssue[], context: string): string {
  // a one-of-required rule: one message for it, not one per alternative that is missing
  const oneOf = issues.find((issue) => issue.keyword === 'oneOf' && requiredAlternatives(issue));
  if (oneOf) {
    const field = [context, ...oneOf.instancePath.split('/').filter(Boolean)].join('.');
    return `${field} must have exactly one of ${requiredAlternatives(oneOf)}`;
  }
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.instancePath.split('/').filter(Boolean);
      if (issue.keyword === 'required') path.push(String(issue.params.missingProperty));
      const field = [context, ...path].join('.');
      if (issue.keyword === 'required') return `${field} is required`;
      if (issue.keyword === 'additionalProperties')
        return `${field}.${String(issue.params.additionalProperty)} is not allowed`;
      if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
        return `${field} must be one of ${issue.params.allowedValues.join(', ')}`;
      }
      const rule = issue.parentSchema?.[RULE];
      if ((issue.keyword === 'pattern' || issue.keyword === 'format') && typeof rule === 'string')
        return `${field} ${rule}`;
      const hint =
        (issue.keyword === 'pattern' || issue.keyword === 'format') && issue.parentSchema?.description
          ? ` (${issue.parentSchema.description})`
          : '';
      return `${field} ${issue.message ?? 'is invalid'}${hint}`;
    })
    .join('; ');
}

function fromFastifyError(err: FastifyError): { status: number; code: string; message: string } {
  if (err.validation) {
    return {
      status: 400,
      code: 'VALIDATION',
      message: describeValidation(
        err.validation as AjvIssue[],
        err.validationContext === 'querystring' ? 'query' : (err.validationContext ?? 'body'),
      ),
    };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'body is larger than 1 MiB' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'VALIDATION', message: 'body is not valid JSON' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'VALIDATION', message: 'body must be application/json' };
  }
  if (err.statusCode === 429) return { status: 429, code: 'RATE_LIMITED', message: err.message };
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return { status: err.statusCode, code: 'VALIDATION', message: err.message };
  }
  return { status: 500, code: 'INTERNAL', message: 'internal error' };
}

/** Path segments may be this long (references are up to 255 characters, percent-encoded up to 9 each). */
export const MAX_PARAM_LENGTH = 4096;

const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'the URL is not validly percent-encoded',
  FST_ERR_MAX_PARAM_LENGTH: `a path segment is longer than ${MAX_PARAM_LENGTH} characters`,
};

/** Fastify's own request errors before routing (a broken or oversized URL): 400 in the error body too. */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  reply.status(400).send(errorBody('VALIDATION', FRAMEWORK_MESSAGES[err.code] ?? 'the request is not valid'));
}

/** A registered route's path as a pattern of concrete paths (":name" one segment, "*" the rest). */
function pathPattern(url: string): RegExp {
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const segment = (part: string) =>
    part === '*'
      ? '.*'
      : part
          .split(/(:[A-Za-z0-9_]+)/)
          .map((piece) => (piece.startsWith(':') ? '[^/]+' : escapeRegExp(piece)))
          .join('');
  return new RegExp(`^${url.split('/').map(segment).join('/')}$`);
}

/**
 * The methods each registered path answers, for 405: a known path with another method is
 * "405 Method Not Allowed" with `Allow` (RFC 9110 15.5.6), not 404.
 */
export class RouteMethods {
  private readonly routes: { url: string; pattern: RegExp; methods: Set<string> }[] = [];

  add(url: string, method: string | string[]): void {
    let route = this.routes.find((r) => r.url === url);
    if (!route) {
      route = { url, pattern: pathPattern(url), methods: new Set() };
      this.routes.push(route);
    }
    for (const m of [method].flat()) route.methods.add(m.toUpperCase());
  }

  /** Every method some route answers at this concrete path (empty: no route has the path). */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) for (const m of r.methods) methods.add(m);
    return [...methods].sort();
  }
}

export function registerErrorHandling(app: FastifyInstance, routes?: RouteMethods): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof DomainError) {
      const { status, wire } = ERROR_TABLE[err.code];
      return reply.status(status).send(errorBody(wire ?? err.code, err.message));
    }
    const mapped = fromFastifyError(err);
    if (mapped.status >= 500) request.log.error({ err }, 'unhandled error');
    if (err.statusCode === 429 && reply.getHeader('retry-after') === undefined) reply.header('retry-after', 60);
    return reply.status(mapped.status).send(errorBody(mapped.code, mapped.message));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    let decoded = path;
    try {
      decoded = decodeURI(path);
    } catch {
      // a broken escape never matched a route anyway
    }
    const allowed = routes?.allowed(decoded) ?? [];
    if (allowed.length > 0) {
      const allow = allowed.join(', ');
      return reply
        .status(405)
        .header('allow', allow)
        .send(errorBody('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allow}`));
    }
    reply.status(404).send(errorBody('NOT_FOUND', `no route ${request.method} ${path}`));
  });
}
