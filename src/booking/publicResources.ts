/**
 * Public references to resources. The public flow has no crmId, so a reference must be unique on
 * its own: the full form `resourceId@providerUuid@platform`, the resource UUID, or the short form
 * `resourceId@platform` (resources.reference) when exactly one resource has it.
 */
import { invalid, notFound } from '../errors.js';
import type { BookingWindow } from '../offerings/bookingWindow.js';
import type { StoredChannels } from '../offerings/channels.js';
import type { Queryable } from '../storage/db.js';

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
  /** NULL: no limit (offerings/bookingLimits.ts) */
  booking_limit_per_day: number | null;
  booking_limit_per_week: number | null;
  time_zone: string;
  provider_name: string;
  provider_email: string | null;
  provider_phone: string | null;
  provider_description: string | null;
  is_theming_allowed: boolean;
  is_localisation_allowed: boolean;
  are_custom_fields_allowed: boolean;
  /** the provider's limit per consumer (booking/consumerLimit.ts); NULL: none */
  max_upcoming_bookings_per_consumer: number | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** The columns of PublicResource, of `resources r` joined with `providers p` (PUBLIC_RESOURCE_FROM). */
export const PUBLIC_RESOURCE_COLUMNS = `r.id, r.crm_id, r.provider_id, r.reference, r.public_name, r.description,
       r.website, r.img_url, r.msg_help_text, r.contact_channel_type, r.contact_user_id, r.archived, r.address,
       r.channels, r.booking_window, r.booking_limit_per_day, r.booking_limit_per_week,
       p.time_zone, p.name AS provider_name, p.email AS provider_email, p.phone AS provider_phone,
       p.description AS provider_description,
       p.is_theming_allowed, p.is_localisation_allowed, p.are_custom_fields_allowed,
       p.max_upcoming_bookings_per_consumer`;
export const PUBLIC_RESOURCE_FROM = 'FROM resources r JOIN providers p ON p.id = r.provider_id';
const SELECT = `SELECT ${PUBLIC_RESOURCE_COLUMNS} ${PUBLIC_RESOURCE_FROM}`;

/** Adds a parameter to the statement being built and gives its placeholder. */
export type AddParam = (value: unknown) => string;

/** The WHERE (over `resources r`) matching a reference, null when it has no valid form. */
function refWhere(ref: string, param: AddParam): string | null {
  if (isUuid(ref)) return `r.id = ${param(ref)}`;
  const parts = ref.split('@');
  if (parts.length === 3 && parts.every(Boolean)) {
    const [resourceId, providerUuid, platform] = parts;
    if (!isUuid(providerUuid)) return null;
    return `r.provider_id = ${param(providerUuid)} AND r.reference = ${param(`${resourceId}@${platform}`)}`;
  }
  if (parts.length === 2 && parts.every(Boolean)) return `r.reference = ${param(ref)}`;
  return null;
}

/** 404 when a reference matches no resource, 400 when a short one matches resources of several providers. */
function checkMatches(matches: number, ref: string, field: string): void {
  if (matches === 0) throw notFound(`no resource found for ${field} ${ref}`);
  if (matches > 1) {
    throw invalid(
      `${field} ${ref} is ambiguous: several providers have a resource with this reference; ` +
        `use the full form resourceId@providerUuid@platform`,
    );
  }
}

async function resolveWith<T>(
  db: Queryable,
  select: string,
  ref: string,
  field: string,
  leading: unknown[] = [],
): Promise<T> {
  const params = [...leading];
  const where = refWhere(ref, (value) => `$${params.push(value)}`);
  const rows = where ? await db.query<T>(`${select} WHERE ${where} LIMIT 2`, params) : [];
  checkMatches(rows.length, ref, field);
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
export function resolveResourceWith<T>(
  db: Queryable,
  ref: string,
  field: string,
  extraColumns: string,
  leading: unknown[],
): Promise<PublicResource & T> {
  return resolveWith<PublicResource & T>(
    db,
    `SELECT ${PUBLIC_RESOURCE_COLUMNS}, ${extraColumns} ${PUBLIC_RESOURCE_FROM}`,
    ref,
    field,
    leading,
  );
}

/** Resolves several references, keeping their order and dropping duplicates. */
export async function resolveResources(
  db: Queryable,
  refs: { ref: string; field: string }[],
): Promise<PublicResource[]> {
  const out = new Map<string, PublicResource>();
  for (const { ref, field } of refs) {
    const r = await resolveResource(db, ref, field);
    if (!out.has(r.id)) out.set(r.id, r);
  }
  return [...out.values()];
}

/**
 * SQL resolving references inside a larger statement: a `refs (i, ids)` VALUES list for a WITH, the
 * ids (at most two) each reference matches. `resolvedIds` then checks them as resolveResources does.
 * `uuidsAsIds`: a UUID reference stands for its id unread, whether a resource has it or not (for a
 * check of versions read before: a resource's version moves when it is deleted).
 */
export function refsValuesSql(refs: { ref: string }[], param: AddParam, uuidsAsIds = false): string {
  return refs
    .map(({ ref }, i) => {
      if (uuidsAsIds && isUuid(ref)) return `(${i}, ARRAY[${param(ref)}::uuid])`;
      const where = refWhere(ref, param);
      return `(${i}, ${where ? `ARRAY(SELECT r.id FROM resources r WHERE ${where} LIMIT 2)` : `'{}'::uuid[]`})`;
    })
    .join(', ');
}

/**
 * The ids the references resolved to (their matches per reference,
 * in order), duplicates dropped; errors as resolveResource.
 */
export function resolvedIds(refs: { ref: string; field: string }[], matches: string[][]): string[] {
  refs.forEach(({ ref, field }, i) => {
    checkMatches(matches[i].length, ref, field);
  });
  return [...new Set(matches.map((ids) => ids[0]))];
}

/** The resource by id, for code that already knows it (the resource of a timeslot or appointment). */
export async function resourceById(db: Queryable, id: string): Promise<PublicResource | undefined> {
  return (await db.query<PublicResource>(`${SELECT} WHERE r.id = $1`, [id]))[0];
}
