import { Type, type TSchema } from '@fastify/type-provider-typebox';

export const API_INFO = { version: '1' } as const;

/** `{"api-info":{"version":"1"}, ...payload}`: the envelope of every non-bare JSON answer. */
export function envelope<T extends object>(payload: T): { 'api-info': typeof API_INFO } & T {
  return { 'api-info': API_INFO, ...payload };
}

export const ApiInfo = Type.Object({ version: Type.String() });

/** Response schema of an enveloped answer with the given members. */
export function Enveloped<P extends Record<string, TSchema>>(members: P) {
  return Type.Object({ 'api-info': ApiInfo, ...members });
}

export const ErrorResponse = Type.Object(
  {
    'api-info': ApiInfo,
    errors: Type.Array(Type.Object({ errorCode: Type.String(), message: Type.String() })),
  },
  { description: 'Error body of every endpoint' },
);

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** What each error status means, as the document describes it. */
export const ERROR_MEANINGS = {
  400: 'invalid request: the message names the field and the rule it breaks',
  401: 'X-SERVICE-CLIENT-ID is missing or not a valid API key',
  403: 'the API key belongs to another crmId',
  404: 'a reference in the path or body names nothing that exists (or nothing of this partner)',
  409: 'the request conflicts with the current state; the message says with what',
  412:
    'the slot cannot be had (errorCode "201"), it lies outside the booking window (BOOKING_WINDOW), ' +
    "or its date or week is at the resource's booking limit (BOOKING_LIMIT)",
  413: 'the body is larger than 1 MiB',
  415: 'the body is not of a media type this operation takes (application/json)',
  422:
    'the Idempotency-Key was used before with another request (IDEMPOTENCY_KEY_REUSED), ' +
    'or a calendar could not be read (CALENDAR_UNREADABLE)',
  429: 'too many requests (RATE_LIMITED), or too many live reservations of this client (HOLD_LIMIT); see Retry-After',
  503:
    'the database is unavailable for a moment (DATABASE_UNAVAILABLE: a restart or failover; see Retry-After), ' +
    'or, on /readyz, the instance is shutting down',
} as const;

export type ErrorStatus = keyof typeof ERROR_MEANINGS;

/** The documented error body for each of the given statuses, each with what it means. */
export function errorReplies<S extends ErrorStatus>(...statuses: S[]): { [K in S]: typeof ErrorResponse } {
  return Object.fromEntries(
    statuses.map((status) => [status, Type.Object(ErrorResponse.properties, { description: ERROR_MEANINGS[status] })]),
  ) as { [K in S]: typeof ErrorResponse };
}

/** Under /crms/{crmId}: 400, 401, 403 and 404 everywhere (a NUL character in any query value is 400 too). */
export const partnerErrors = <S extends ErrorStatus>(...extra: S[]) =>
  errorReplies<400 | 401 | 403 | 404 | S>(400, 401, 403, 404, ...extra);
/** What a request body itself can be refused for: too large (413), not JSON (415). */
export const BODY_ERRORS = [413, 415] as const;
