import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode } from '../errors.js';

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
  CANCEL_NOTICE: { status: 409 },
  IDEMPOTENCY_KEY_REUSED: { status: 422 },
  IDEMPOTENCY_KEY_IN_USE: { status: 409 },
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
}

/** "body.email is required", "query.raster must be integer": always names the field. */
export function describeValidation(issues: AjvIssue[], context: string): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.instancePath.split('/').filter(Boolean);
      if (issue.keyword === 'required') path.push(String(issue.params.missingProperty));
      const field = [context, ...path].join('.');
      if (issue.keyword === 'required') return `${field} is required`;
      if (issue.keyword === 'additionalProperties') return `${field}.${String(issue.params.additionalProperty)} is not allowed`;
      if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
        return `${field} must be one of ${issue.params.allowedValues.join(', ')}`;
      }
      return `${field} ${issue.message ?? 'is invalid'}`;
    })
    .join('; ');
}

function fromFastifyError(err: FastifyError): { status: number; code: string; message: string } {
  if (err.validation) {
    return { status: 400, code: 'VALIDATION', message: describeValidation(err.validation as AjvIssue[], err.validationContext === 'querystring' ? 'query' : (err.validationContext ?? 'body')) };
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

export function registerErrorHandling(app: FastifyInstance): void {
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
    reply.status(404).send(errorBody('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
}
