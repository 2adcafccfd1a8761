import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../storage/db.js';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(): string {
  return randomBytes(24).toString('base64url');
}

/** Stores the key (hashed) unless it is already there; used for API_KEYS at start. */
export async function ensureKey(db: Queryable, crmId: string, key: string, label = 'API_KEYS'): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (crm_id, key_hash, label) VALUES ($1, $2, $3)
     ON CONFLICT (key_hash) DO UPDATE SET revoked_at = NULL WHERE api_keys.crm_id = EXCLUDED.crm_id`,
    [crmId, hashKey(key), label],
  );
}

export async function createKey(db: Queryable, crmId: string, label?: string): Promise<{ id: string; key: string }> {
  const key = generateKey();
  const [row] = await db.query<{ id: string }>(
    'INSERT INTO api_keys (crm_id, key_hash, label) VALUES ($1, $2, $3) RETURNING id',
    [crmId, hashKey(key), label ?? null],
  );
  return { id: row.id, key };
}

export interface ApiKeyInfo {
  id: string;
  crmId: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function listKeys(db: Queryable, crmId?: string): Promise<ApiKeyInfo[]> {
  return db.query<ApiKeyInfo>(
    `SELECT id, crm_id AS "crmId", label, created_at AS "createdAt", revoked_at AS "revokedAt"
       FROM api_keys WHERE $1::text IS NULL OR crm_id = $1 ORDER BY created_at`,
    [crmId ?? null],
  );
}

/** Revokes one key by id, or every key of the crm when id is omitted. Returns how many. */
export async function revokeKeys(db: Queryable, crmId: string, id?: string): Promise<number> {
  const rows = await db.query(
    `UPDATE api_keys SET revoked_at = now()
      WHERE crm_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id = $2) RETURNING id`,
    [crmId, id ?? null],
  );
  return rows.length;
}

/** The crmId a presented key belongs to, or null. The stored hash is compared in constant time. */
export async function authenticate(db: Queryable, presented: string): Promise<string | null> {
  const hash = hashKey(presented);
  const [row] = await db.query<{ crm_id: string; key_hash: string }>(
    'SELECT crm_id, key_hash FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [hash],
  );
  if (!row) return null;
  return timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash)) ? row.crm_id : null;
}
