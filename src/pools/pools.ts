/**
 * Pools (DESIGN 7.11, docs/pools.md): a provider's resources grouped so that a consumer books
 * "whoever is free". The partner API: create, list, read, change and delete. The public flow on a
 * pool is booking's (booking/poolBooking.ts) and listing's (listing/poolListing.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { conflict, invalid, notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';

export const ASSIGNMENTS = ['LEAST_RECENTLY_BOOKED', 'BALANCED', 'PRIORITY'] as const;
export type Assignment = (typeof ASSIGNMENTS)[number];
export const DEFAULT_PRIORITY = 2;

export interface PoolMemberInput {
  resourceReference: string;
  /** 0..4, 4 the highest; default 2 */
  priority?: number;
}

export interface PoolInput {
  reference: string;
  publicName: string;
  description?: string | null;
  members: PoolMemberInput[];
  assignment?: Assignment;
}

export type PoolChange = Partial<Omit<PoolInput, 'reference'>>;

export interface PoolView {
  reference: string;
  uuid: string;
  publicName: string;
  description: string | null;
  members: { resourceReference: string; priority: number }[];
  assignment: Assignment;
}

interface PoolRow {
  id: string;
  reference: string;
  public_name: string;
  description: string | null;
  assignment: Assignment;
  members: { resourceReference: string; priority: number }[];
}

const POOL_SELECT = `
  SELECT p.id, p.reference, p.public_name, p.description, p.assignment,
         COALESCE((SELECT json_agg(json_build_object('resourceReference', r.reference, 'priority', m.priority)
                                   ORDER BY m.position)
                     FROM pool_members m JOIN resources r ON r.id = m.resource_id
                    WHERE m.pool_id = p.id), '[]'::json) AS members
    FROM pools p`;

const poolView = (row: PoolRow): PoolView => ({
  reference: row.reference,
  uuid: row.id,
  publicName: row.public_name,
  description: row.description,
  members: row.members,
  assignment: row.assignment,
});

async function poolRow(db: Queryable, providerId: string, reference: string, lock = false): Promise<PoolRow> {
  const [row] = await db.query<PoolRow>(
    `${POOL_SELECT} WHERE p.provider_id = $1 AND p.reference = $2${lock ? ' FOR UPDATE OF p' : ''}`,
    [providerId, reference],
  );
  if (!row) throw notFound(`no pool found for reference ${reference}`);
  return row;
}

/** The members' resource ids in the given order: 400 for a resource named twice, 404 naming an unknown one. */
async function memberIds(tx: Queryable, providerId: string, members: PoolMemberInput[]): Promise<string[]> {
  const seen = new Map<string, number>();
  members.forEach((m, i) => {
    const first = seen.get(m.resourceReference);
    if (first !== undefined)
      throw invalid(
        `body.members[${i}].resourceReference ${m.resourceReference} is named twice (also body.members[${first}])`,
      );
    seen.set(m.resourceReference, i);
  });
  const refs = members.map((m) => m.resourceReference);
  const rows = await tx.query<{ id: string; reference: string }>(
    'SELECT id, reference FROM resources WHERE provider_id = $1 AND reference = ANY($2::text[])',
    [providerId, refs],
  );
  const ids = new Map(rows.map((r) => [r.reference, r.id]));
  return refs.map((ref, i) => {
    const id = ids.get(ref);
    if (!id) throw notFound(`body.members[${i}].resourceReference: no resource found for reference ${ref}`);
    return id;
  });
}

/** Replaces the members; a member that stays keeps when it was last booked through the pool. */
async function setMembers(tx: Queryable, poolId: string, providerId: string, members: PoolMemberInput[]) {
  const ids = await memberIds(tx, providerId, members);
  await tx.query('DELETE FROM pool_members WHERE pool_id = $1 AND NOT (resource_id = ANY($2::uuid[]))', [poolId, ids]);
  await tx.query(
    `INSERT INTO pool_members (pool_id, resource_id, position, priority)
     SELECT $1, m.id, m.position, m.priority
       FROM unnest($2::uuid[], $3::int[]) WITH ORDINALITY AS m(id, priority, position)
     ON CONFLICT (pool_id, resource_id) DO UPDATE SET position = EXCLUDED.position, priority = EXCLUDED.priority`,
    [poolId, ids, members.map((m) => m.priority ?? DEFAULT_PRIORITY)],
  );
}

function duplicateReference(err: unknown, reference: string): never {
  if (sqlState(err) === '23505' && constraintName(err) === 'pools_crm_id_reference_key')
    throw conflict(`a pool with reference ${reference} already exists`);
  throw err;
}

export async function createPool(deps: Deps, crmId: string, providerRef: string, input: PoolInput): Promise<PoolView> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const id = randomUUID();
    await tx
      .query(
        `INSERT INTO pools (id, crm_id, provider_id, reference, public_name, description, assignment)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          id,
          crmId,
          provider.id,
          input.reference,
          input.publicName,
          input.description ?? null,
          input.assignment ?? 'LEAST_RECENTLY_BOOKED',
        ],
      )
      .catch((err) => duplicateReference(err, input.reference));
    await setMembers(tx, id, provider.id, input.members);
    return poolView(await poolRow(tx, provider.id, input.reference));
  });
}

export async function listPools(deps: Deps, crmId: string, providerRef: string): Promise<PoolView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const rows = await deps.db.query<PoolRow>(`${POOL_SELECT} WHERE p.provider_id = $1 ORDER BY p.reference`, [
    provider.id,
  ]);
  return rows.map(poolView);
}

export async function getPool(deps: Deps, crmId: string, providerRef: string, reference: string): Promise<PoolView> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  return poolView(await poolRow(deps.db, provider.id, reference));
}

/** Changes the given fields; `members` replaces the list. */
export async function changePool(
  deps: Deps,
  crmId: string,
  providerRef: string,
  reference: string,
  change: PoolChange,
): Promise<PoolView> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const pool = await poolRow(tx, provider.id, reference, true);
    await tx.query(
      `UPDATE pools SET public_name = COALESCE($2, public_name),
              description = CASE WHEN $3 THEN $4 ELSE description END,
              assignment = COALESCE($5, assignment), version = version + 1, updated_at = now()
        WHERE id = $1`,
      [
        pool.id,
        change.publicName ?? null,
        change.description !== undefined,
        change.description ?? null,
        change.assignment ?? null,
      ],
    );
    if (change.members) await setMembers(tx, pool.id, provider.id, change.members);
    return poolView(await poolRow(tx, provider.id, reference));
  });
}

/** Deletes the pool; bookings made through it stay (their pool_id becomes NULL). */
export async function deletePool(deps: Deps, crmId: string, providerRef: string, reference: string): Promise<void> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const rows = await deps.db.query('DELETE FROM pools WHERE provider_id = $1 AND reference = $2 RETURNING id', [
    provider.id,
    reference,
  ]);
  if (rows.length === 0) throw notFound(`no pool found for reference ${reference}`);
}
