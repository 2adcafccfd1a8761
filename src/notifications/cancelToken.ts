import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import type { Queryable } from '../storage/db.js';

const SETTING = 'cancel_link_secret';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The key of every signed link (cancel and decision links): CANCEL_LINK_SECRET, else a secret generated once and kept
 * in the database (same for every instance).
 */
export async function cancelSecret(db: Queryable, config: Config): Promise<string> {
  if (config.cancelLinkSecret) return config.cancelLinkSecret;
  await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
    SETTING,
    randomBytes(32).toString('hex'),
  ]);
  const [row] = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [SETTING]);
  return row.value;
}

/**
 * Settles the links' key in the instance's config: CANCEL_LINK_SECRET, else the generated one, read
 * once. The generated key never changes once written, so an instance reads it when it starts
 * instead of with every link (two statements fewer per booking). The config object is the
 * instance's own: everything holding it (routes, background jobs) signs with the settled key.
 */
export async function settleLinkSecret(db: Queryable, config: Config): Promise<void> {
  config.cancelLinkSecret ??= await cancelSecret(db, config);
}

/**
 * What a link may do. The purpose is part of the signed text, so the consumer's cancel token and
 * the provider's decision token of one participation differ and neither works as the other.
 */
export type LinkPurpose = 'cancel' | 'decide';

function mac(secret: string, purpose: LinkPurpose, participationId: string): string {
  return createHmac('sha256', secret).update(`${purpose}:${participationId}`).digest('base64url');
}

/** `{participationId}.{HMAC-SHA256}`: scoped to one participation and purpose, unforgeable without the secret. */
export function signLinkToken(secret: string, purpose: LinkPurpose, participationId: string): string {
  return `${participationId}.${mac(secret, purpose, participationId)}`;
}

/** The participation id of a genuine token of this purpose, or null for anything forged or altered. */
export function verifyLinkToken(secret: string, purpose: LinkPurpose, token: string): string | null {
  const [id, given, ...rest] = token.split('.');
  if (rest.length > 0 || !id || !given || !UUID.test(id)) return null;
  const expected = Buffer.from(mac(secret, purpose, id));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? id : null;
}

export const signCancelToken = (secret: string, participationId: string) =>
  signLinkToken(secret, 'cancel', participationId);
export const verifyCancelToken = (secret: string, token: string) => verifyLinkToken(secret, 'cancel', token);

export function cancelLinkUrl(config: Config, token: string): string {
  return `${config.publicBaseUrl}/cancel/${token}`;
}

export async function cancelLinkFor(db: Queryable, config: Config, participationId: string): Promise<string> {
  return cancelLinkUrl(config, signCancelToken(await cancelSecret(db, config), participationId));
}

/** The provider's decision link of a REQUESTED participation (docs/provider-links.md); never in a consumer's mail. */
export async function decisionLinkFor(db: Queryable, config: Config, participationId: string): Promise<string> {
  return `${config.publicBaseUrl}/requests/${signLinkToken(await cancelSecret(db, config), 'decide', participationId)}`;
}

/** A "my bookings" token's parts: the customer it starts from and when it expires. */
export interface MyBookingsToken {
  customerId: string;
  expiresAt: Date;
}

const myBookingsMac = (secret: string, t: MyBookingsToken, email: string) =>
  createHmac('sha256', secret)
    .update(`my-bookings:${t.customerId}:${Math.floor(t.expiresAt.getTime() / 1000)}:${email.toLowerCase()}`)
    .digest('base64url');

/**
 * `{customerId}.{expiry in Unix seconds}.{HMAC-SHA256}` (DESIGN 7.12): the MAC covers the customer,
 * the expiry and the e-mail address (which the URL does not show), so the token is void once that
 * customer's address changes or is erased, and after the expiry.
 */
export function signMyBookingsToken(secret: string, t: MyBookingsToken, email: string): string {
  return `${t.customerId}.${Math.floor(t.expiresAt.getTime() / 1000)}.${myBookingsMac(secret, t, email)}`;
}

/** The token's parts, or null for anything not of its form (nothing checked yet). */
export function readMyBookingsToken(token: string): (MyBookingsToken & { mac: string }) | null {
  const [customerId, expiry, mac, ...rest] = token.split('.');
  if (rest.length > 0 || !UUID.test(customerId ?? '') || !/^\d{1,12}$/.test(expiry ?? '') || !mac) return null;
  return { customerId, expiresAt: new Date(Number(expiry) * 1000), mac };
}

/** Whether a read token was signed for this address (constant time). */
export function myBookingsTokenValid(secret: string, t: MyBookingsToken & { mac: string }, email: string): boolean {
  const expected = Buffer.from(myBookingsMac(secret, t, email));
  const actual = Buffer.from(t.mac);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
