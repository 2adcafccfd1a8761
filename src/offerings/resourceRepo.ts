import type { Queryable } from '../storage/db.js';
import type { ChannelType } from './contact.js';
import type { StoredChannels } from './channels.js';
import type { BookingWindow } from './bookingWindow.js';

export interface Address {
  city: string;
  street: string;
  number: string;
  zip: string;
  countryCode: string;
}

export interface ResourceRow {
  id: string;
  crm_id: string;
  provider_id: string;
  reference: string;
  public_name: string;
  internal_name: string;
  description: string | null;
  contact_user_id: string | null;
  contact_profile_id: string | null;
  website: string | null;
  img_url: string | null;
  msg_help_text: string | null;
  contact_channel_type: ChannelType | null;
  archived: boolean;
  address: Address | null;
  channels: StoredChannels;
  booking_window: BookingWindow | null;
  booking_limit_per_day: number | null;
  booking_limit_per_week: number | null;
  provider_reference: string;
  contact_reference: string | null;
  contact_profile_reference: string | null;
  /** product references in the order they were given */
  product_references: string[];
}

const RESOURCE_SELECT = `
  SELECT r.*, p.reference AS provider_reference, u.reference AS contact_reference,
    cp.reference AS contact_profile_reference,
         COALESCE((SELECT json_agg(pr.reference ORDER BY rp.position, pr.reference)
                     FROM resource_products rp JOIN products pr ON pr.id = rp.product_id
                    WHERE rp.resource_id = r.id), '[]'::json) AS product_references
    FROM resources r
    JOIN providers p ON p.id = r.provider_id
    LEFT JOIN users u ON u.id = r.contact_user_id
    LEFT JOIN contact_profiles cp ON cp.id = r.contact_profile_id`;

export const resourceByReference = async (db: Queryable, providerId: string, reference: string) =>
  (
    await db.query<ResourceRow>(`${RESOURCE_SELECT} WHERE r.provider_id = $1 AND r.reference = $2`, [
      providerId,
      reference,
    ])
  )[0];

export const resourceById = async (db: Queryable, id: string) =>
  (await db.query<ResourceRow>(`${RESOURCE_SELECT} WHERE r.id = $1`, [id]))[0];

export const resourcesOfProvider = (db: Queryable, providerId: string) =>
  db.query<ResourceRow>(`${RESOURCE_SELECT} WHERE r.provider_id = $1 ORDER BY r.created_at, r.reference`, [providerId]);

/** Column values of a resource write; undefined members are left as they are. */
export interface ResourceColumns {
  public_name?: string;
  internal_name?: string;
  description?: string | null;
  contact_user_id?: string | null;
  contact_profile_id?: string | null;
  website?: string | null;
  img_url?: string | null;
  msg_help_text?: string | null;
  contact_channel_type?: string | null;
  archived?: boolean;
  address?: Address | null;
  channels?: StoredChannels;
  booking_window?: BookingWindow | null;
  booking_limit_per_day?: number | null;
  booking_limit_per_week?: number | null;
}

const JSON_COLUMNS = new Set(['address', 'channels', 'booking_window']);

function jsonParam(column: string, value: unknown): unknown {
  return JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value;
}

export async function insertResource(
  db: Queryable,
  base: { crmId: string; providerId: string; reference: string },
  columns: ResourceColumns & { public_name: string; internal_name: string },
): Promise<string> {
  const entries = Object.entries(columns).filter(([, v]) => v !== undefined);
  const names = ['crm_id', 'provider_id', 'reference', ...entries.map(([k]) => k)];
  const params = [base.crmId, base.providerId, base.reference, ...entries.map(([k, v]) => jsonParam(k, v))];
  const placeholders = names.map((n, i) => (JSON_COLUMNS.has(n) ? `$${i + 1}::jsonb` : `$${i + 1}`));
  const [row] = await db.query<{ id: string }>(
    `INSERT INTO resources (${names.join(', ')}) VALUES (${placeholders.join(', ')}) RETURNING id`,
    params,
  );
  return row.id;
}

export async function updateResourceColumns(db: Queryable, id: string, columns: ResourceColumns): Promise<void> {
  const sets: string[] = ['updated_at = now()'];
  const params: unknown[] = [id];
  for (const [column, value] of Object.entries(columns)) {
    if (value === undefined) continue;
    params.push(jsonParam(column, value));
    sets.push(`${column} = $${params.length}${JSON_COLUMNS.has(column) ? '::jsonb' : ''}`);
  }
  await db.query(`UPDATE resources SET ${sets.join(', ')} WHERE id = $1`, params);
}

/** Replaces the products of a resource, keeping the given order. */
export async function setResourceProducts(db: Queryable, resourceId: string, productIds: string[]): Promise<void> {
  await db.query('DELETE FROM resource_products WHERE resource_id = $1', [resourceId]);
  for (const [position, productId] of productIds.entries()) {
    await db.query('INSERT INTO resource_products (resource_id, product_id, position) VALUES ($1, $2, $3)', [
      resourceId,
      productId,
      position,
    ]);
  }
}

/** Ids of the provider's products with these references, in the given order; the missing references too. */
export async function productIdsByReference(
  db: Queryable,
  providerId: string,
  references: string[],
): Promise<{ ids: string[]; missing: string[] }> {
  const rows = await db.query<{ id: string; reference: string }>(
    'SELECT id, reference FROM products WHERE provider_id = $1 AND reference = ANY($2::text[])',
    [providerId, references],
  );
  const byRef = new Map(rows.map((r) => [r.reference, r.id]));
  return {
    ids: references.filter((r) => byRef.has(r)).map((r) => byRef.get(r)!),
    missing: references.filter((r) => !byRef.has(r)),
  };
}
