/**
 * Standard Webhooks 1.0 signatures, made by the spec's reference implementation: `v1,<base64
 * HMAC-SHA256 over "id.timestamp.body">` per secret, space-separated while a rotation's old secret
 * is still valid.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** `whsec_` and the base64 of 32 random bytes: shown to the partner once. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export interface SignedHeaders {
  'content-type': 'application/json';
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signedHeaders(secrets: string[], id: string, at: Date, body: string): SignedHeaders {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' '),
  };
}
