/** Products as the public flow sees them: the products a resource offers, filtered by channel. */
import { notFound } from '../errors.js';
import type { Queryable } from '../storage/db.js';
import type { ProductRow as OfferingProductRow } from '../offerings/products.js';
import type { ChannelKey } from '../offerings/channels.js';
import { publicQuestions, storedQuestions } from '../offerings/questions.js';
import { productVisibleOn } from '../offerings/channels.js';
import { isUuid } from './publicResources.js';
import type { EngineProduct } from './slotEngine.js';

/**
 * A product row as the public flow reads it (everything but the crm). The listing reads no
 * questions: only A3 (and A4, findProduct) need them.
 */
export type ProductRow = Omit<OfferingProductRow, 'crm_id' | 'questions'> & { questions?: unknown };

const COLUMNS = `pr.id, pr.provider_id, pr.reference, pr.name, pr.description, pr.min_duration, pr.max_duration,
  pr.lead_time_minutes, pr.follow_up_time_minutes, pr.exclusive, pr.questions`;

const productJson = (withQuestions = false) => `json_build_object(
    'id', pr.id, 'provider_id', pr.provider_id, 'reference', pr.reference, 'name', pr.name, 'description',
      pr.description,
    'min_duration', pr.min_duration, 'max_duration', pr.max_duration, 'lead_time_minutes', pr.lead_time_minutes,
    'follow_up_time_minutes', pr.follow_up_time_minutes, 'exclusive',
      pr.exclusive${withQuestions ? ", 'questions', pr.questions" : ''})`;

/**
 * The products of the resource `resourceId` (an SQL expression) as a JSON array of ProductRow, in
 * the resource's order; with their questions when asked.
 */
export const productsJsonSql = (
  resourceId: string,
  withQuestions = false,
) => `(SELECT COALESCE(json_agg(${productJson(withQuestions)} ORDER BY rp.position, pr.name, pr.id), '[]'::json)
  FROM resource_products rp JOIN products pr ON pr.id = rp.product_id WHERE rp.resource_id = ${resourceId})`;

/**
 * Which product a reference names among the products of providers `providerIds` (an SQL
 * uuid[] expression): the UUID, else the reference (the first by id when several providers use it).
 * `refParam` is the placeholder holding the reference.
 */
function productLookup(ref: string, refParam: string, providerIds: string): string {
  const byRef = isUuid(ref) ? `pr.id = ${refParam}::uuid` : `pr.reference = ${refParam}`;
  return `FROM products pr WHERE ${byRef} AND pr.provider_id = ANY(${providerIds}) ORDER BY pr.id LIMIT 1`;
}

/** The product `ref` names (see productLookup) as one ProductRow JSON value, null when none. */
export const productLookupJsonSql = (ref: string, refParam: string, providerIds: string) =>
  `(SELECT ${productJson()} ${productLookup(ref, refParam, providerIds)})`;

/** Every product of each resource (channel not applied), in the resource's order. */
export async function productsOfResources(db: Queryable, resourceIds: string[]): Promise<Map<string, ProductRow[]>> {
  const out = new Map<string, ProductRow[]>(resourceIds.map((id) => [id, []]));
  if (resourceIds.length === 0) return out;
  const rows = await db.query<ProductRow & { resource_id: string }>(
    `SELECT rp.resource_id, ${COLUMNS}
       FROM resource_products rp JOIN products pr ON pr.id = rp.product_id
      WHERE rp.resource_id = ANY($1::uuid[])
      ORDER BY rp.position, pr.name, pr.id`,
    [resourceIds],
  );
  for (const { resource_id, ...product } of rows) out.get(resource_id)!.push(product);
  return out;
}

export function onChannel(products: ProductRow[], channel: ChannelKey): ProductRow[] {
  return products.filter((p) => productVisibleOn(p, channel));
}

/** A product by UUID, or by reference among the given providers' products; 404 when none. */
export async function findProduct(
  db: Queryable,
  ref: string,
  providerIds: string[],
  field: string,
): Promise<ProductRow> {
  const rows = await db.query<ProductRow>(`SELECT ${COLUMNS} ${productLookup(ref, '$1', '$2::uuid[]')}`, [
    ref,
    providerIds,
  ]);
  if (!rows[0]) throw notFound(`no product found for ${field} ${ref}`);
  return rows[0];
}

/** A4's product, its questions in the consumer's language. */
export const publicProduct = (p: ProductRow, language?: string) => ({
  uuid: p.id,
  name: p.name,
  description: p.description ?? '',
  minDuration: p.min_duration,
  maxDuration: p.max_duration,
  leadTimeMinutes: p.lead_time_minutes,
  followUpTimeMinutes: p.follow_up_time_minutes,
  exclusive: p.exclusive,
  questions: publicQuestions(storedQuestions(p.questions), language),
});

export const productRef = (p: ProductRow) => ({ uuid: p.id, name: p.name });

const engineProducts = new WeakMap<ProductRow, EngineProduct>();

/**
 * The slot engine's view of a product row, made once per row object: a listing's data kept across
 * reads keeps its rows, so a pool's members see the same product object from read to read
 * (poolListing.ts memberRun compares them).
 */
export function engineProduct(p: ProductRow): EngineProduct {
  let product = engineProducts.get(p);
  if (!product) {
    product = {
      id: p.id,
      leadMin: p.lead_time_minutes ?? 0,
      followUpMin: p.follow_up_time_minutes ?? 0,
      minDurationMin: p.min_duration,
    };
    engineProducts.set(p, product);
  }
  return product;
}
