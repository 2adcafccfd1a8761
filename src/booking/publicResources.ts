/**
 * Public references to resources. The public flow has no crmId, so a reference must be unique on
 * its own: the full form `resourceId@providerUuid@platform`, the resource UUID, or the short form
 * `resourceId@platform` (resources.reference) when exactly one resource has it.
 */
import { invalid, notFound } from '../errors.js';
import type { BookingWindow } from '../offerings/bookingWindow.js';
import type { StoredChannels } from '../offerings/channels.js';
import type { Queryable } from '../storage/db.js';
import { FreshReads } from '../storage/freshReads.js';

export interface PublicResource {
  id: string;
  crm_id: string;
  provider_id: string;
  reference: string;
  public_name: string;
  description: string | null;
  website: string | null;
  img_url: string | null;
  msg_help_text: string | null;
  contact_channel_type: string | null;
  contact_user_id: string | null;
  archived: boolean;
  address: unknown;
  channels: StoredChannels | null;
  /** NULL: no limits (offerings/bookingWindow.ts) */
  booking_window: Partial<BookingWindow> | null;
  time_zone: string;
  provider_name: string;
  provider_email: string | null;
  provider_phone: string | null;
  provider_description: string | null;
  is_theming_allowed: boolean;
  is_localisation_allowed: boolean;
  are_custom_fields_allowed: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** The columns of PublicResource, of `resources r` joined with `providers p` (PUBLIC_RESOURCE_FROM). */
export const PUBLIC_RESOURCE_COLUMNS = `r.id, r.crm_id, r.provider_id, r.reference, r.public_name, r.description, r.website, r.img_url,
       r.msg_help_text, r.contact_channel_type, r.contact_user_id, r.archived, r.address, r.channels, r.booking_window,
       p.time_zone, p.name AS provider_name, p.email AS provider_email, p.phone AS provider_phone, p.description AS provider_description,
       p.is_theming_allowed, p.is_localisation_allowed, p.are_custom_fields_allowed`;
export const PUBLIC_RESOURCE_FROM = 'FROM resources r JOIN providers p ON p.id = r.provider_id';
const SELECT = `SELECT ${PUBLIC_RESOURCE_COLUMNS} ${PUBLIC_RESOURCE_FROM}`;

type RefQuery = { where: string; params: unknown[] };

/** The WHERE of a reference; its placeholders start after `offset` leading parameters. */
function refQuery(ref: string, offset = 0): RefQuery | null {
  const $1 = `$${offset + 1}`;
  const $2 = `$${offset + 2}`;
  if (isUuid(ref)) return { where: `r.id = ${$1}`, params: [ref] };
  const parts = ref.split('@');
  if (parts.length === 3 && parts.every(Boolean)) {
    const [resourceId, providerUuid, platform] = parts;
    if (!isUuid(providerUuid)) return null;
    return { where: `r.provider_id = ${$1} AND r.reference = ${$2}`, params: [providerUuid, `${resourceId}@${platform}`] };
  }
  if (parts.length === 2 && parts.every(Boolean)) return { where: `r.reference = ${$1}`, params: [ref] };
  return null;
}

async function resolveWith<T>(db: Queryable, select: string, ref: string, field: string, leading: unknown[] = []): Promise<T> {
  const q = refQuery(ref, leading.length);
  if (!q) throw notFound(`no resource found for ${field} ${ref}`);
  const rows = await db.query<T>(`${select} WHERE ${q.where} LIMIT 2`, [...leading, ...q.params]);
  if (rows.length === 0) throw notFound(`no resource found for ${field} ${ref}`);
  if (rows.length > 1) {
    throw invalid(`${field} ${ref} is ambiguous: several providers have a resource with this reference; use the full form resourceId@providerUuid@platform`);
  }
  return rows[0];
}

/**
 * The resource a public reference names (archived ones included: callers decide what archived
 * means for them). 404 when none matches; 400 when a short reference is shared across providers.
 */
export function resolveResource(db: Queryable, ref: string, field = 'ref'): Promise<PublicResource> {
  return resolveWith<PublicResource>(db, SELECT, ref, field);
}

/**
 * resolveResource plus further columns computed in the same query (one round trip on hot paths);
 * `extraColumns` may use $1..$n for `leading`.
 */
export function resolveResourceWith<T>(db: Queryable, ref: string, field: string, extraColumns: string, leading: unknown[]): Promise<PublicResource & T> {
  return resolveWith<PublicResource & T>(db, `SELECT ${PUBLIC_RESOURCE_COLUMNS}, ${extraColumns} ${PUBLIC_RESOURCE_FROM}`, ref, field, leading);
}

async function resolveAll<T extends { id: string }>(refs: { ref: string; field: string }[], one: (ref: string, field: string) => Promise<T>): Promise<T[]> {
  const out = new Map<string, T>();
  for (const { ref, field } of refs) {
    const r = await one(ref, field);
    if (!out.has(r.id)) out.set(r.id, r);
  }
  return [...out.values()];
}

/** Resolves several references, keeping their order and dropping duplicates. */
export function resolveResources(db: Queryable, refs: { ref: string; field: string }[]): Promise<PublicResource[]> {
  return resolveAll(refs, (ref, field) => resolveResource(db, ref, field));
}

// listing_version (migration 006): how many changes that can alter the resource's listing were committed
const VERSION_SELECT = 'SELECT r.id, listing_version(r.id)::text AS listing_version FROM resources r';

type ListingVersion = { id: string; listing_version: string };
const versionReads = new WeakMap<Queryable, FreshReads<ListingVersion[]>>();

/**
 * Like resolveResources, but only ids and listing versions: what a cached listing is checked
 * against. Concurrent lookups of the same references share one fresh read (see FreshReads).
 */
export function resolveListingVersions(db: Queryable, refs: { ref: string; field: string }[]): Promise<ListingVersion[]> {
  let reads = versionReads.get(db);
  if (!reads) versionReads.set(db, (reads = new FreshReads()));
  return reads.read(JSON.stringify(refs), () => resolveAll(refs, (ref, field) => resolveWith(db, VERSION_SELECT, ref, field)));
}

/** The resource by id, for code that already knows it (the resource of a timeslot or appointment). */
export async function resourceById(db: Queryable, id: string): Promise<PublicResource | undefined> {
  return (await db.query<PublicResource>(`${SELECT} WHERE r.id = $1`, [id]))[0];
}
