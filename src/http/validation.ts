import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Options, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { REQUEST_FORMATS } from './requestSchema.js';

// ajv-formats ships CommonJS; its default export sits one level down under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/**
 * JSON Schema 2020-12, the dialect of the OpenAPI 3.1 document the route schemas become: the keywords
 * of http/requestSchema.ts (dependent and counted rules, `discriminator`) hold as the document says.
 * verbose: a 400 names the rule from the failed schema (http/errors.ts describeValidation).
 */
const shared: Options = {
  allErrors: false,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
  verbose: true,
  discriminator: true,
};

function validator(options: Options): Ajv2020 {
  const ajv = addFormats(new Ajv2020(options));
  for (const [name, validate] of Object.entries(REQUEST_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}

// Bodies are JSON: a string is never silently taken for a number. Query and params are text and need coercion.
const strictAjv = validator({ ...shared, coerceTypes: false });
const coercingAjv = validator({ ...shared, coerceTypes: 'array' });

/**
 * Validators by request part and schema text. Each distinct schema is compiled once per process:
 * the schemas a route registers are fresh copies (requestSchema.ts), so Ajv's own cache, by object,
 * never finds them, and the apps a test process builds one after another compiled everything again.
 */
const compiled = new Map<string, ValidateFunction>();

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const body = httpPart === 'body';
  const key = `${body ? 'body' : 'text'} ${JSON.stringify(schema)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = (body ? strictAjv : coercingAjv).compile(schema);
    compiled.set(key, validate);
  }
  return validate as ReturnType<FastifySchemaCompiler<object>>;
};
