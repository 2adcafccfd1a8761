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

/** Error responses every route may give, for the OpenAPI document. */
export const errorResponses = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
} as const;

/** A plain string enum: its 400 lists the allowed values ("must be one of ..."). */
export const StringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
