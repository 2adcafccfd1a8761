/**
 * Public references to pools, as the public flow takes them wherever it takes a resource's: the
 * pool's UUID, the full form `poolId@providerUuid@platform`, or the short form `poolId@platform`
 * when exactly one pool has it (as booking/publicResources.ts reads a resource's).
 */
import { invalid, notFound } from '../errors.js';
import type { Queryable } from '../storage/db.js';
import type { Assignment } from './pools.js';

export interface PublicPoolMember {
  id: string;
  public_name: string;
  priority: number;
  archived: boolean;
}

export interface PublicPool {
  id: string;
  crm_id: string;
  provider_id: string;
  reference: string;
  public_name: string;
  description: string | null;
  assignment: Assignment;
  version: string;
  /** in the pool's order, archived ones included */
  members: PublicPoolMember[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function poolWhere(ref: string, params: unknown[]): string | null {
  const param = (value: unknown) => `$${params.push(value)}`;
  if (UUID.test(ref)) return `p.id = ${param(ref)}`;
  const parts = ref.split('@');
  if (parts.length === 3 && parts.every(Boolean) && UUID.test(parts[1]))
    return `p.provider_id = ${param(parts[1])} AND p.reference = ${param(`${parts[0]}@${parts[2]}`)}`;
  if (parts.length === 2 && parts.every(Boolean)) return `p.reference = ${param(ref)}`;
  return null;
}

const SELECT = `
  SELECT p.id, p.crm_id, p.provider_id, p.reference, p.public_name, p.description, p.assignment, p.version::text,
         COALESCE((SELECT json_agg(json_build_object('id', r.id, 'public_name', r.public_name,
                                                     'priority', m.priority, 'archived', r.archived)
                                   ORDER BY m.position)
                     FROM pool_members m JOIN resources r ON r.id = m.resource_id WHERE m.pool_id = p.id),
                  '[]'::json) AS members
    FROM pools p`;

/** The pool a public reference names, or undefined when it names none (400 when a short one is ambiguous). */
export async function findPublicPool(db: Queryable, ref: string, field = 'ref'): Promise<PublicPool | undefined> {
  const params: unknown[] = [];
  const where = poolWhere(ref, params);
  if (!where) return undefined;
  const rows = await db.query<PublicPool>(`${SELECT} WHERE ${where} LIMIT 2`, params);
  if (rows.length > 1)
    throw invalid(`${field} ${ref} is ambiguous: several providers have a pool with this reference; use its UUID`);
  return rows[0];
}

/** The pool a public reference names; 404 when none. */
export async function requirePublicPool(db: Queryable, ref: string, field = 'ref'): Promise<PublicPool> {
  const pool = await findPublicPool(db, ref, field);
  if (!pool) throw notFound(`no resource or pool found for ${field} ${ref}`);
  return pool;
}

/** The pool with this id (a booking's pool), or undefined once it is deleted. */
export async function poolById(db: Queryable, id: string): Promise<PublicPool | undefined> {
  return (await db.query<PublicPool>(`${SELECT} WHERE p.id = $1`, [id]))[0];
}
