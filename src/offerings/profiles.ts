import type { Deps } from '../context.js';
import { conflict, invalid, notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import * as partnerRepo from '../partners/repo.js';
import { retryOnUniqueViolation, type Queryable } from '../storage/db.js';
import type { ContactChannel } from './contact.js';
import { mergeContactChannels, type ContactChannelInput, type StoredChannel } from './profileChannels.js';

export interface GeneralProfileInput {
  name: string;
  contactChannels: ContactChannelInput[];
}

export interface ProviderProfileInput extends GeneralProfileInput {
  reference: string;
  userReference: string;
  providerReference: string;
}

/** reference and providerReference only on provider-specific profiles. */
export interface ProfileView {
  reference?: string;
  userReference: string;
  providerReference?: string;
  name: string;
  contactChannels: StoredChannel[];
}

interface ProfileRow {
  id: string;
  reference: string | null;
  name: string;
  channels: ContactChannel[];
  user_id: string;
  user_reference: string;
  provider_reference: string | null;
}

function profileView(row: ProfileRow): ProfileView {
  const contactChannels = row.channels.map((c) => ({ type: c.type, label: c.label ?? null, value: c.value }));
  if (row.provider_reference === null || row.reference === null) {
    return { userReference: row.user_reference, name: row.name, contactChannels };
  }
  return {
    reference: row.reference,
    userReference: row.user_reference,
    providerReference: row.provider_reference,
    name: row.name,
    contactChannels,
  };
}

const PROFILE_SELECT = `
  SELECT cp.id, cp.reference, cp.name, cp.channels, cp.user_id, u.reference AS user_reference,
    p.reference AS provider_reference
    FROM contact_profiles cp JOIN users u ON u.id = cp.user_id LEFT JOIN providers p ON p.id = cp.provider_id`;

const generalProfileOf = async (db: Queryable, userId: string) =>
  (await db.query<ProfileRow>(`${PROFILE_SELECT} WHERE cp.user_id = $1 AND cp.provider_id IS NULL`, [userId]))[0];

const providerProfile = async (db: Queryable, providerId: string, reference: string) =>
  (
    await db.query<ProfileRow>(`${PROFILE_SELECT} WHERE cp.provider_id = $1 AND cp.reference = $2`, [
      providerId,
      reference,
    ])
  )[0];

const profileById = async (db: Queryable, id: string) =>
  (await db.query<ProfileRow>(`${PROFILE_SELECT} WHERE cp.id = $1`, [id]))[0];

async function requireUser(db: Queryable, crmId: string, reference: string, field: string) {
  const user = await partnerRepo.userByReference(db, crmId, reference);
  if (!user) throw notFound(`no user found for ${field} ${reference}`);
  return user;
}

async function writeChannels(tx: Queryable, id: string, name: string, channels: StoredChannel[]): Promise<void> {
  await tx.query('UPDATE contact_profiles SET name = $2, channels = $3::jsonb, updated_at = now() WHERE id = $1', [
    id,
    name,
    JSON.stringify(channels),
  ]);
}

/** B7: the user's general profile; 404 when the user or the profile does not exist. */
export async function getGeneralProfile(deps: Deps, crmId: string, userRef: string): Promise<ProfileView> {
  const user = await requireUser(deps.db, crmId, userRef, 'user reference');
  const row = await generalProfileOf(deps.db, user.id);
  if (!row) throw notFound(`user ${userRef} has no general contact profile`);
  return profileView(row);
}

/** B8: creates the general profile (created: true) or updates it with the merge rule. */
export async function putGeneralProfile(
  deps: Deps,
  crmId: string,
  userRef: string,
  input: GeneralProfileInput,
): Promise<{ created: boolean; profile: ProfileView }> {
  return retryOnUniqueViolation(() =>
    deps.db.transaction(async (tx) => {
      const user = await requireUser(tx, crmId, userRef, 'user reference');
      const existing = await generalProfileOf(tx, user.id);
      if (existing) {
        await writeChannels(
          tx,
          existing.id,
          input.name,
          mergeContactChannels(existing.channels, input.contactChannels),
        );
        return { created: false, profile: profileView(await profileById(tx, existing.id)) };
      }
      const [{ id }] = await tx.query<{ id: string }>(
        'INSERT INTO contact_profiles (crm_id, user_id, name, channels) VALUES ($1, $2, $3, $4::jsonb) RETURNING id',
        [crmId, user.id, input.name, JSON.stringify(mergeContactChannels([], input.contactChannels))],
      );
      return { created: true, profile: profileView(await profileById(tx, id)) };
    }),
  );
}

/** B9: one provider-specific profile; 404 when the reference is unknown. */
export async function getProviderProfile(
  deps: Deps,
  crmId: string,
  providerRef: string,
  profileRef: string,
): Promise<ProfileView> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const row = await providerProfile(deps.db, provider.id, profileRef);
  if (!row) throw notFound(`no contact profile found for reference ${profileRef}`);
  return profileView(row);
}

/**
 * B10: creates a provider-specific profile (created: true) or updates the one with that reference
 * by the merge rule. A profile stays with its user: another userReference for it is 409.
 */
export async function upsertProviderProfile(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: ProviderProfileInput,
): Promise<{ created: boolean; profile: ProfileView }> {
  if (input.providerReference !== providerRef) {
    throw invalid(
      `body.providerReference must be the provider of the path (${providerRef}), got ${input.providerReference}`,
    );
  }
  return retryOnUniqueViolation(() =>
    deps.db.transaction(async (tx) => {
      const provider = await requireProvider(tx, crmId, providerRef);
      const user = await requireUser(tx, crmId, input.userReference, 'body.userReference');
      const existing = await providerProfile(tx, provider.id, input.reference);
      if (existing && existing.user_id !== user.id) {
        throw conflict(
          `contact profile ${input.reference} belongs to user ${existing.user_reference}, ` +
            `not to ${input.userReference}`,
        );
      }
      if (existing) {
        await writeChannels(
          tx,
          existing.id,
          input.name,
          mergeContactChannels(existing.channels, input.contactChannels),
        );
        return { created: false, profile: profileView(await profileById(tx, existing.id)) };
      }
      const [{ id }] = await tx.query<{ id: string }>(
        `INSERT INTO contact_profiles (crm_id, user_id, provider_id, reference, name, channels)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING id`,
        [
          crmId,
          user.id,
          provider.id,
          input.reference,
          input.name,
          JSON.stringify(mergeContactChannels([], input.contactChannels)),
        ],
      );
      return { created: true, profile: profileView(await profileById(tx, id)) };
    }),
  );
}
