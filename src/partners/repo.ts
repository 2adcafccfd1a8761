import type { Queryable } from '../storage/db.js';

export interface UserRow {
  id: string;
  crm_id: string;
  reference: string | null;
  email: string;
  username: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  mobile: string | null;
  language: string | null;
  email_verified: boolean;
}

export interface AccountRow {
  id: string;
  reference: string;
  owner_reference: string | null;
  branch: string;
  invoice_address: Record<string, string> | null;
  invoice_contact_name: string | null;
  invoice_company_name: string | null;
  invoice_tax_id: string | null;
  email: string | null;
}

export interface ProviderRow {
  id: string;
  crm_id: string;
  reference: string;
  owner_user_id: string;
  owner_reference: string | null;
  account_reference: string;
  name: string;
  description: string | null;
  email: string | null;
  mobile: string | null;
  phone: string | null;
  impressum: string | null;
  branch: string | null;
  subbranch: string | null;
  time_zone: string;
  is_theming_allowed: boolean;
  is_localisation_allowed: boolean;
  are_custom_fields_allowed: boolean;
  /** null: REMINDER_MINUTES_BEFORE applies */
  reminder_minutes_before: number[] | null;
  /** null: no limit per consumer */
  max_upcoming_bookings_per_consumer: number | null;
}

export const userByReference = async (db: Queryable, crmId: string, reference: string) =>
  (await db.query<UserRow>('SELECT * FROM users WHERE crm_id = $1 AND reference = $2', [crmId, reference]))[0];

export const userByEmail = async (db: Queryable, crmId: string, email: string) =>
  (await db.query<UserRow>('SELECT * FROM users WHERE crm_id = $1 AND lower(email) = lower($2)', [crmId, email]))[0];

export const userByUsername = async (db: Queryable, crmId: string, username: string) =>
  (
    await db.query<UserRow>('SELECT * FROM users WHERE crm_id = $1 AND lower(username) = lower($2)', [crmId, username])
  )[0];

export async function emailsLike(db: Queryable, crmId: string, local: string, domain: string): Promise<Set<string>> {
  const rows = await db.query<{ email: string }>(
    `SELECT lower(email) AS email FROM users WHERE crm_id = $1 AND lower(email) LIKE lower($2) || '%'
       AND lower(email) LIKE '%' || lower($3)`,
    [crmId, local, domain],
  );
  return new Set(rows.map((r) => r.email));
}

export interface NewUser {
  crmId: string;
  reference: string | null;
  email: string;
  username: string;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  mobile?: string | null;
  /** the mobile in E.164 (phoneNumbers.ts); null: none, or none could be read */
  mobileE164?: string | null;
  language: string;
}

export async function insertUser(db: Queryable, u: NewUser): Promise<UserRow> {
  const [row] = await db.query<UserRow>(
    `INSERT INTO users (crm_id, reference, email, username, first_name, last_name, phone, mobile, mobile_e164, language)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [
      u.crmId,
      u.reference,
      u.email,
      u.username,
      u.firstName ?? null,
      u.lastName ?? null,
      u.phone ?? null,
      u.mobile ?? null,
      u.mobileE164 ?? null,
      u.language,
    ],
  );
  return row;
}

const USER_COLUMNS = {
  reference: 'reference',
  email: 'email',
  username: 'username',
  firstName: 'first_name',
  lastName: 'last_name',
  phone: 'phone',
  mobile: 'mobile',
  mobileE164: 'mobile_e164',
  language: 'language',
  emailVerified: 'email_verified',
} as const;

export type UserChanges = Partial<Record<keyof typeof USER_COLUMNS, string | boolean | null>>;

/** Sets the given columns only; undefined members are left alone. */
export async function updateUser(db: Queryable, id: string, changes: UserChanges): Promise<UserRow> {
  const sets: string[] = [];
  const params: unknown[] = [id];
  for (const [key, column] of Object.entries(USER_COLUMNS)) {
    const value = changes[key as keyof typeof USER_COLUMNS];
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  const [row] = await db.query<UserRow>(
    `UPDATE users SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`,
    params,
  );
  return row;
}

const ACCOUNT_SELECT = `SELECT a.*, u.reference AS owner_reference
                          FROM accounts a JOIN users u ON u.id = a.owner_user_id`;

export const accountByReference = async (db: Queryable, crmId: string, reference: string) =>
  (await db.query<AccountRow>(`${ACCOUNT_SELECT} WHERE a.crm_id = $1 AND a.reference = $2`, [crmId, reference]))[0];

const PROVIDER_SELECT = `SELECT p.*, u.reference AS owner_reference, a.reference AS account_reference
  FROM providers p JOIN users u ON u.id = p.owner_user_id JOIN accounts a ON a.id = p.account_id`;

export const providerByReference = async (db: Queryable, crmId: string, reference: string) =>
  (await db.query<ProviderRow>(`${PROVIDER_SELECT} WHERE p.crm_id = $1 AND p.reference = $2`, [crmId, reference]))[0];

export const providerById = async (db: Queryable, id: string) =>
  (await db.query<ProviderRow>(`${PROVIDER_SELECT} WHERE p.id = $1`, [id]))[0];
