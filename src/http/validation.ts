import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats ships CommonJS; its default export sits one level down under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

// verbose: a 400 names the rule from the failed schema (http/errors.ts describeValidation)
const shared: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false, verbose: true };
// Bodies are JSON: a string is never silently taken for a number. Query and params are text and need coercion.
const strictAjv = addFormats(new Ajv({ ...shared, coerceTypes: false }));
const coercingAjv = addFormats(new Ajv({ ...shared, coerceTypes: 'array' }));

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
