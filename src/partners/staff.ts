import type { Deps } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { requireProvider } from './providers.js';
import * as repo from './repo.js';
import { userView, type UserView } from './users.js';

export type StaffView = Omit<UserView, 'language'>;

function staffView(row: repo.UserRow): StaffView {
  const { language: _language, ...rest } = userView(row);
  return rest;
}

/** C7: the provider's staff, owner included, as a bare list. */
export async function listStaff(deps: Deps, crmId: string, providerRef: string): Promise<StaffView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const rows = await deps.db.query<repo.UserRow>(
    `SELECT u.* FROM provider_staff s JOIN users u ON u.id = s.user_id
      WHERE s.provider_id = $1 ORDER BY s.created_at, u.reference`,
    [provider.id],
  );
  return rows.map(staffView);
}

export async function addStaff(
  deps: Deps,
  crmId: string,
  providerRef: string,
  userReference: string,
): Promise<{ added: boolean; staff: StaffView }> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const user = await repo.userByReference(tx, crmId, userReference);
    if (!user) throw notFound(`no user found for userReference ${userReference}`);
    const inserted = await tx.query(
      'INSERT INTO provider_staff (provider_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING user_id',
      [provider.id, user.id],
    );
    return { added: inserted.length > 0, staff: staffView(user) };
  });
}

export async function removeStaff(
  deps: Deps,
  crmId: string,
  providerRef: string,
  userReference: string,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const user = await repo.userByReference(tx, crmId, userReference);
    if (!user) throw notFound(`no user found for reference ${userReference}`);
    if (user.id === provider.owner_user_id) throw conflict('the provider owner cannot be removed from the staff');
    const removed = await tx.query(
      'DELETE FROM provider_staff WHERE provider_id = $1 AND user_id = $2 RETURNING user_id',
      [provider.id, user.id],
    );
    if (removed.length === 0) throw notFound(`user ${userReference} is not staff of provider ${providerRef}`);
  });
}
