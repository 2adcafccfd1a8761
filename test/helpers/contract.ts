/**
 * The OpenAPI document held to the server in every integration test that starts the app through
 * startTestApp: each answer a route gives is checked against the document while the tests run.
 *   - the route is in the document (HEAD and the /docs pages of swagger-ui aside),
 *   - the status is one the operation documents,
 *   - a JSON body validates against the documented schema of that status (ajv, JSON Schema 2020-12),
 *   - no error message carries a database-formatted timestamp ("2026-11-30 08:30:00+00").
 * A violation fails the test that caused it: the next app.inject throws, and close() does too.
 */
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/** A timestamp as PostgreSQL prints it: a space instead of the T, and an offset such as +00. */
export const DATABASE_TIMESTAMP = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}/;

type Json = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

/** Routes of the framework and of swagger-ui that are no operations of the service. */
const UNDOCUMENTED = (method: string, url: string) => method === 'HEAD' || url === '/docs' || url.startsWith('/docs/');

export const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export class ContractCheck {
  /** every route the app registered: method and Fastify path */
  readonly routes: { method: string; url: string }[] = [];
  readonly violations: string[] = [];
  /** every error message an answer carried, for the scan for database timestamps */
  readonly errorMessages: string[] = [];
  private doc: { paths: Record<string, Record<string, Operation>> } | null = null;
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
  private readonly validators = new Map<string, ValidateFunction>();
  private reported = 0;

  /** For buildApp's `instrument`: runs before any route is registered. */
  readonly instrument = (app: FastifyInstance): void => {
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) this.routes.push({ method, url: route.url });
    });
    app.addHook('onSend', async (request, reply, payload) => {
      const url = request.routeOptions.url;
      // no route (404/405 of the not-found handler) or a request refused before routing: no operation to hold it to
      if (url !== undefined && this.doc)
        this.check(
          request.method,
          url,
          reply.statusCode,
          reply.getHeader('content-type'),
          reply.getHeader('content-encoding'),
          payload,
        );
      return payload;
    });
  };

  /** The document, once the app is ready. */
  load(doc: unknown): void {
    this.doc = doc as typeof this.doc;
  }

  operation(method: string, url: string): Operation | undefined {
    return this.doc?.paths[openapiPath(url)]?.[method.toLowerCase()];
  }

  /** Throws the violations found since the last call. */
  assertClean(): void {
    if (this.violations.length > this.reported) {
      const fresh = this.violations.slice(this.reported);
      this.reported = this.violations.length;
      throw new Error(`the answers broke the OpenAPI document:\n${fresh.join('\n')}`);
    }
  }

  private check(
    method: string,
    url: string,
    status: number,
    contentType: unknown,
    encoding: unknown,
    payload: unknown,
  ): void {
    if (UNDOCUMENTED(method, url)) return;
    // CANONICAL_HOST's 301 to the canonical host name is the
    // deployment's, for every path alike, not an operation's answer
    if (status === 301) return;
    const where = `${method} ${openapiPath(url)}`;
    const op = this.operation(method, url);
    if (!op) {
      this.violations.push(`${where} is not in the document`);
      return;
    }
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k]);
    if (!key) {
      this.violations.push(
        `${where} answered ${status}, which it does not document (documented: ${Object.keys(op.responses).join(', ')})`,
      );
      return;
    }
    // 204 and 304 have no body, whatever the payload before sending
    if (status === 204 || status === 304 || !String(contentType ?? '').startsWith('application/json')) return;
    const text = bodyText(payload, encoding);
    if (text === null || text === '') return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.violations.push(`${where} ${status}: the body is not JSON`);
      return;
    }
    const schema = op.responses[key].content?.['application/json']?.schema;
    if (!schema) {
      this.violations.push(`${where} ${status}: a JSON body, but the document gives this status no JSON schema`);
      return;
    }
    const id = `${where} ${key}`;
    let validate = this.validators.get(id);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.validators.set(id, validate);
    }
    if (!validate(body)) {
      this.violations.push(
        `${where} ${status}: the body does not match the documented schema: ` +
          `${this.ajv.errorsText(validate.errors)}\n  ${text.slice(0, 300)}`,
      );
    }
    const errors = (body as { errors?: { message?: unknown }[] }).errors;
    if (status >= 400 && Array.isArray(errors)) {
      for (const e of errors) {
        const message = String(e.message ?? '');
        this.errorMessages.push(message);
        if (DATABASE_TIMESTAMP.test(message))
          this.violations.push(`${where} ${status}: the error message carries a database timestamp: ${message}`);
      }
    }
  }
}

function bodyText(payload: unknown, encoding: unknown): string | null {
  let bytes: Buffer;
  if (typeof payload === 'string') bytes = Buffer.from(payload);
  else if (Buffer.isBuffer(payload)) bytes = payload;
  else return null; // a stream (files) or nothing
  if (encoding === 'gzip') bytes = gunzipSync(bytes);
  else if (encoding === 'br') bytes = brotliDecompressSync(bytes);
  return bytes.toString('utf8');
}
