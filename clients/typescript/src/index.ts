/**
 * Typed client of the booking service: every path, body and answer of the service's OpenAPI
 * document (generated into schema.ts by `npm run client:generate`), used through openapi-fetch,
 * and verifyWebhook for receivers of its webhooks.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { paths, webhooks } from './schema.js';

export type { components, paths, webhooks } from './schema.js';

export type BookingClient = Client<paths>;

export interface BookingClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** e.g. https://booking.example.com */
  baseUrl: string;
  /** the partner's API key, sent as X-SERVICE-CLIENT-ID (the public booking flow needs none) */
  apiKey?: string;
}

/**
 * The query as the service reads it (style form, explode): `?a=1&a=2` for an array, and the members
 * of an object parameter (the document's way to state a rule across parameters, e.g. `person` of
 * exportConsumerData) as parameters of their own: `{ person: { email } }` is `?email=...`.
 */
export function formQuery(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) for (const item of value) add(name, item);
    else if (typeof value === 'object') for (const [member, item] of Object.entries(value)) add(member, item);
    else search.append(name, String(value));
  };
  for (const [name, value] of Object.entries(query ?? {})) add(name, value);
  return search.toString();
}

export function createBookingClient({ apiKey, headers, ...options }: BookingClientOptions): BookingClient {
  return createClient<paths>({
    querySerializer: formQuery,
    ...options,
    headers: { ...(apiKey ? { 'X-SERVICE-CLIENT-ID': apiKey } : {}), ...(headers as object) },
  });
}

/** Every webhook body the service sends, by its `type`. */
export type WebhookEvent = {
  [T in keyof webhooks]: webhooks[T] extends { post: { requestBody?: { content: { 'application/json': infer B } } } }
    ? B
    : never;
}[keyof webhooks];

export class WebhookVerificationError extends Error {}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  if (Array.isArray(value) ? value.length === 0 : !value)
    throw new WebhookVerificationError(`the ${name} header is missing`);
  return Array.isArray(value) ? value[0] : (value as string);
}

/**
 * Checks a delivery's Standard Webhooks signature (any of its signatures made with `secret`, and a
 * timestamp within 5 minutes) over the raw body exactly as received, and returns the event.
 * Throws WebhookVerificationError otherwise. Dedupe by `webhook-id`: retries repeat it.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderBag,
  rawBody: string | Uint8Array,
): WebhookEvent & { id: string } {
  const wanted = {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  };
  try {
    const event = new Webhook(secret).verify(
      typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody),
      wanted,
    ) as WebhookEvent;
    return { ...event, id: wanted['webhook-id'] };
  } catch (err) {
    throw new WebhookVerificationError((err as Error).message);
  }
}
