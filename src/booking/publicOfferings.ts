/** A4 active_products and A5 public_data: what the widget shows before listing slots. */
import type { Deps } from '../context.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { findPublicPool, type PublicPool } from '../pools/publicPools.js';
import { loadResourceContact } from '../offerings/contact.js';
import type { Queryable } from '../storage/db.js';
import { bookingProcessOf, type ChannelKey } from '../offerings/channels.js';
import { onChannel, productsOfResources, publicProduct } from './publicProducts.js';
import { isUuid, resolveResources, resourceById, type PublicResource } from './publicResources.js';

export interface PublicScopeQuery {
  ref?: string[];
  tslRefs?: string[];
  channelKey: ChannelKey;
}

/** What a tslRefs entry names: a timeslot or an appointment (which fixes the product). */
interface Slotted {
  resourceId: string;
  productId: string | null;
}

async function resolveTslRef(db: Queryable, ref: string, providerIds: string[]): Promise<Slotted> {
  const byUuid = isUuid(ref);
  const rows = await db.query<{ resource_id: string | null; product_id: string | null; provider_id: string }>(
    `SELECT resource_id, NULL::uuid AS product_id, provider_id FROM timeslots
       WHERE ${byUuid ? 'id = $1::uuid' : 'reference = $1'}
     UNION ALL
     SELECT resource_id, product_id, provider_id FROM appointments
       WHERE ${byUuid ? 'id = $1::uuid' : 'reference = $1'}`,
    [ref],
  );
  const candidates = rows.filter(
    (r) => r.resource_id !== null && (providerIds.length === 0 || providerIds.includes(r.provider_id)),
  );
  if (candidates.length === 0) throw notFound(`no timeslot or appointment found for tslRefs ${ref}`);
  if (candidates.length > 1) throw invalid(`tslRefs ${ref} is ambiguous: pass the UUID, or a ref naming the resource`);
  return { resourceId: candidates[0].resource_id!, productId: candidates[0].product_id };
}

interface Scope {
  resources: PublicResource[];
  /** the first pool among the references (its members are among resources) */
  pool?: PublicPool;
  /** resource id -> the only product an appointment in tslRefs allows (absent: all) */
  fixedProducts: Map<string, Set<string>>;
}

async function resolveScope(db: Queryable, q: PublicScopeQuery): Promise<Scope> {
  const refs = q.ref ?? [];
  const tslRefs = q.tslRefs ?? [];
  const resources: PublicResource[] = [];
  let pool: PublicPool | undefined;
  for (const ref of refs) {
    // a pool's reference stands for its members (DESIGN 7.11): A4 lists what any of them offers
    const named = await resolveResources(db, [{ ref, field: 'query.ref' }]).catch(async (err) => {
      const found =
        err instanceof DomainError && err.code === 'NOT_FOUND' && (await findPublicPool(db, ref, 'query.ref'));
      if (!found) throw err;
      pool ??= found;
      const ids = found.members.filter((m) => !m.archived).map((m) => m.id);
      return (await Promise.all(ids.map((id) => resourceById(db, id)))).filter((r) => r !== undefined);
    });
    for (const r of named) if (!resources.some((x) => x.id === r.id)) resources.push(r);
  }
  const providerIds = [...new Set(resources.map((r) => r.provider_id))];
  const fixedProducts = new Map<string, Set<string>>();
  for (const ref of tslRefs) {
    const slotted = await resolveTslRef(db, ref, providerIds);
    if (!resources.some((r) => r.id === slotted.resourceId))
      resources.push((await resourceById(db, slotted.resourceId))!);
    if (slotted.productId) {
      const set = fixedProducts.get(slotted.resourceId) ?? new Set();
      fixedProducts.set(slotted.resourceId, set.add(slotted.productId));
    }
  }
  if (pool && resources.length === 0) throw notFound(`pool ${pool.reference} has no members that can be booked`);
  return { resources, fixedProducts, pool };
}

/**
 * A4: the products bookable on the given resources, timeslots or appointments, on the channel,
 * with their booking questions in `language` (de or en; another or none: de).
 */
export async function activeProducts(deps: Deps, q: PublicScopeQuery & { language?: string }) {
  const { resources, fixedProducts } = await resolveScope(deps.db, q);
  const byResource = await productsOfResources(
    deps.db,
    resources.map((r) => r.id),
  );
  const seen = new Map<string, ReturnType<typeof publicProduct>>();
  for (const r of resources) {
    const fixed = fixedProducts.get(r.id);
    for (const p of onChannel(byResource.get(r.id)!, q.channelKey)) {
      if (fixed && !fixed.has(p.id)) continue;
      if (!seen.has(p.id)) seen.set(p.id, publicProduct(p, q.language));
    }
  }
  return { products: [...seen.values()] };
}

/** A5: contact, resource, provider and channel of the first resource named. */
export async function publicData(deps: Deps, q: PublicScopeQuery) {
  const { resources, pool } = await resolveScope(deps.db, q);
  const r = resources[0];
  // on a pool: the pool and its members to choose from; `resource` describes the pool
  const onPool = pool?.members.some((m) => m.id === r.id) ? pool : undefined;
  const poolPart = onPool && {
    pool: {
      uuid: onPool.id,
      name: onPool.public_name,
      description: onPool.description,
      members: onPool.members.filter((m) => !m.archived).map((m) => ({ uuid: m.id, name: m.public_name })),
    },
  };
  const contact = await loadResourceContact(deps.db, r.id);
  return {
    contact: {
      name: contact?.name ?? null,
      email: contact?.email ?? null,
      mobile: contact?.mobile ?? null,
      phone: contact?.phone ?? null,
    },
    resource: {
      uuid: onPool ? onPool.id : r.id,
      name: onPool ? onPool.public_name : r.public_name,
      description: onPool ? onPool.description : r.description,
      contactChannelType: r.contact_channel_type,
      msgHelpText: r.msg_help_text,
      url: r.website,
      imgUrl: r.img_url,
    },
    provider: {
      name: r.provider_name,
      description: r.provider_description,
      isThemingAllowed: r.is_theming_allowed,
      isLocalisationAllowed: r.is_localisation_allowed,
      areCustomFieldsAllowed: r.are_custom_fields_allowed,
    },
    channel: { bookingProcess: bookingProcessOf(r.channels, q.channelKey) },
    ...poolPart,
  };
}
