import type { Config } from '../config.js';
import type { MailSources } from '../notifications/compose.js';
import type { Queryable } from '../storage/db.js';

export const CHANNEL_TYPES = ['mobile', 'phone', 'email', 'video', 'messenger', 'link', 'location'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export interface ContactChannel {
  type: ChannelType;
  label?: string | null;
  value: string;
}

export interface Profile {
  name: string;
  channels: ContactChannel[];
}

export interface ContactSources {
  /** the resource's own contact profile (contactProfileReference) */
  profile: Profile | null;
  /** the resource's contact user, with its general profile */
  contactUser: {
    firstName: string | null;
    lastName: string | null;
    email: string | null;
    phone: string | null;
    mobile: string | null;
    language: string | null;
    generalProfile: Profile | null;
  } | null;
  provider: { name: string; email: string | null; phone: string | null; mobile: string | null };
}

export interface ResolvedContact {
  source: 'profile' | 'generalProfile' | 'user' | 'provider';
  name: string | null;
  email: string | null;
  mobile: string | null;
  phone: string | null;
  channels: ContactChannel[];
  /** the contact user's language (provider-side mails speak it); null for the provider's own data */
  language: string | null;
}

const channel = (p: Profile | null, type: ChannelType) => p?.channels.find((c) => c.type === type)?.value ?? null;

/**
 * Who is the contact of a resource: its contact profile, else the contact user's general
 * profile, else the contact user, else the provider's own data. Each field falls back along the
 * same line, so a profile without an email channel still yields the user's email (mail needs one).
 */
export function resolveContact({ profile, contactUser, provider }: ContactSources): ResolvedContact {
  if (!contactUser) {
    return {
      source: 'provider',
      name: provider.name,
      email: provider.email,
      mobile: provider.mobile,
      phone: provider.phone,
      channels: [],
      language: null,
    };
  }
  const chosen = profile ?? contactUser.generalProfile;
  const fullName = [contactUser.firstName, contactUser.lastName].filter(Boolean).join(' ') || null;
  return {
    source: profile ? 'profile' : chosen ? 'generalProfile' : 'user',
    name: chosen?.name ?? fullName ?? provider.name,
    email: channel(chosen, 'email') ?? contactUser.email ?? provider.email,
    mobile: channel(chosen, 'mobile') ?? contactUser.mobile,
    phone: channel(chosen, 'phone') ?? contactUser.phone,
    channels: chosen?.channels ?? [],
    language: contactUser.language,
  };
}

export interface ContactRow {
  provider_name: string;
  provider_email: string | null;
  provider_phone: string | null;
  provider_mobile: string | null;
  user_id: string | null;
  first_name: string | null;
  last_name: string | null;
  user_email: string | null;
  user_phone: string | null;
  user_mobile: string | null;
  user_language: string | null;
  profile_name: string | null;
  profile_channels: ContactChannel[] | null;
  general_name: string | null;
  general_channels: ContactChannel[] | null;
}

const CONTACT_COLUMNS = `p.name AS provider_name, p.email AS provider_email, p.phone AS provider_phone,
       p.mobile AS provider_mobile, u.id AS user_id, u.first_name, u.last_name, u.email AS user_email,
       u.phone AS user_phone, u.mobile AS user_mobile, u.language AS user_language,
       cp.name AS profile_name, cp.channels AS profile_channels,
       gp.name AS general_name, gp.channels AS general_channels
  FROM resources cr
  JOIN providers p ON p.id = cr.provider_id
  LEFT JOIN users u ON u.id = cr.contact_user_id
  LEFT JOIN contact_profiles cp ON cp.id = cr.contact_profile_id
  LEFT JOIN contact_profiles gp ON gp.user_id = u.id AND gp.provider_id IS NULL`;

/**
 * The sources of resolveContact for the resource `resourceId` (an
 * SQL expression), as one JSON value (null: no such resource).
 */
export const resourceContactJsonSql = (resourceId: string) =>
  `(SELECT row_to_json(x) FROM (SELECT ${CONTACT_COLUMNS} WHERE cr.id = ${resourceId}) x)`;

/** Resolves what resourceContactJsonSql (or the same columns) read. */
export function contactFromRow(row: ContactRow | null): ResolvedContact | null {
  if (!row) return null;
  return resolveContact({
    profile: row.profile_name !== null ? { name: row.profile_name, channels: row.profile_channels ?? [] } : null,
    contactUser: row.user_id
      ? {
          firstName: row.first_name,
          lastName: row.last_name,
          email: row.user_email,
          phone: row.user_phone,
          mobile: row.user_mobile,
          language: row.user_language,
          generalProfile:
            row.general_name !== null ? { name: row.general_name, channels: row.general_channels ?? [] } : null,
        }
      : null,
    provider: {
      name: row.provider_name,
      email: row.provider_email,
      phone: row.provider_phone,
      mobile: row.provider_mobile,
    },
  });
}

/** Loads the sources of resolveContact for one resource (by id) and resolves them. */
export async function loadResourceContact(db: Queryable, resourceId: string): Promise<ResolvedContact | null> {
  const [row] = await db.query<ContactRow>(`SELECT ${CONTACT_COLUMNS} WHERE cr.id = $1`, [resourceId]);
  return contactFromRow(row ?? null);
}

/** What the mail composer needs from this module: the resource contact rules above. */
export const mailSources = (config: Config): MailSources => ({ config, contactOf: loadResourceContact });
