import type { Deps } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { enqueueMails } from '../notifications/outbox.js';
import { retryOnUniqueViolation, sqlState, constraintName, type Queryable } from '../storage/db.js';
import { crmCountry, storedE164 } from './phoneNumbers.js';
import * as repo from './repo.js';
import { emailVariant } from './rules.js';

export interface UserInput {
  reference: string;
  email: string;
  username: string;
  lastName: string;
  firstName?: string | null;
  phone?: string | null;
  mobile?: string | null;
}

export interface UserView {
  reference: string | null;
  email: string;
  username: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
  mobile: string | null;
  language: string | null;
}

export function userView(row: repo.UserRow): UserView {
  return {
    reference: row.reference,
    email: row.email,
    username: row.username,
    firstName: row.first_name,
    lastName: row.last_name,
    phone: row.phone,
    mobile: row.mobile,
    language: row.language,
  };
}

export const DEFAULT_LANGUAGE = 'de';
const EMAIL_TAKEN = 'User with given email already exists.';
const USERNAME_TAKEN = 'User with given username already exists.';

/** The first numbered plus-suffix variant of email that no user of the crm has. */
async function freeEmailVariant(db: Queryable, crmId: string, email: string): Promise<string> {
  const at = email.lastIndexOf('@');
  const taken = await repo.emailsLike(db, crmId, `${email.slice(0, at)}+`, email.slice(at));
  for (let n = 1; ; n++) {
    const candidate = emailVariant(email, n);
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

async function assertUsernameFree(db: Queryable, crmId: string, username: string, ownId?: string) {
  const holder = await repo.userByUsername(db, crmId, username);
  if (holder && holder.id !== ownId) throw conflict(USERNAME_TAKEN);
}

/**
 * C1. Known reference: update names and numbers (200). Email of a user without reference: adopt
 * that user, invalidate its verification and mail it (200). Email of a user with another
 * reference: a new user with a plus-suffix variant of the email (201). Otherwise a new user (201).
 */
export async function upsertUser(
  deps: Deps,
  crmId: string,
  input: UserInput,
  language: string | undefined,
): Promise<{ created: boolean; user: UserView }> {
  return retryOnUniqueViolation(() =>
    deps.db.transaction(async (tx) => {
      const details = {
        firstName: input.firstName,
        lastName: input.lastName,
        phone: input.phone,
        ...(await mobileOf(tx, crmId, input.mobile)),
      };
      const known = await repo.userByReference(tx, crmId, input.reference);
      if (known) return { created: false, user: userView(await repo.updateUser(tx, known.id, details)) };

      let email = input.email;
      const sameEmail = await repo.userByEmail(tx, crmId, email);
      if (sameEmail && sameEmail.reference === null) {
        const adopted = await repo.updateUser(tx, sameEmail.id, {
          ...details,
          reference: input.reference,
          emailVerified: false,
        });
        await enqueueMails(tx, [
          {
            crmId,
            template: 'user-email-verification',
            recipient: adopted.email,
            locale: adopted.language ?? DEFAULT_LANGUAGE,
            payload: {
              firstName: adopted.first_name,
              lastName: adopted.last_name,
              email: adopted.email,
              reference: input.reference,
            },
          },
        ]);
        return { created: false, user: userView(adopted) };
      }
      if (sameEmail) email = await freeEmailVariant(tx, crmId, email);
      await assertUsernameFree(tx, crmId, input.username);
      const row = await repo.insertUser(tx, {
        crmId,
        reference: input.reference,
        email,
        username: input.username,
        ...details,
        language: language ?? DEFAULT_LANGUAGE,
      });
      return { created: true, user: userView(row) };
    }),
  );
}

/** A number given for a user, as given, with its E.164 form for the crm's country where it can be read. */
async function mobileOf(tx: Queryable, crmId: string, mobile: string | null | undefined) {
  if (mobile === undefined) return {};
  return { mobile, mobileE164: mobile ? storedE164(mobile, await crmCountry(tx, crmId)) : null };
}

export async function getUser(deps: Deps, crmId: string, reference: string): Promise<UserView> {
  const row = await repo.userByReference(deps.db, crmId, reference);
  if (!row) throw notFound(`no user found for reference ${reference}`);
  return userView(row);
}

export type UserUpdate = Partial<Omit<UserInput, 'reference'> & { language: string }>;

/** PUT on C2's path: the given fields only; 409 when the email or username belongs to another user. */
export async function updateUser(deps: Deps, crmId: string, reference: string, changes: UserUpdate): Promise<UserView> {
  try {
    return await deps.db.transaction(async (tx) => {
      const row = await repo.userByReference(tx, crmId, reference);
      if (!row) throw notFound(`no user found for reference ${reference}`);
      if (changes.email !== undefined) {
        const holder = await repo.userByEmail(tx, crmId, changes.email);
        if (holder && holder.id !== row.id) throw conflict(EMAIL_TAKEN);
      }
      if (changes.username !== undefined) await assertUsernameFree(tx, crmId, changes.username, row.id);
      const emailChanged = changes.email !== undefined && changes.email.toLowerCase() !== row.email.toLowerCase();
      const mobile = await mobileOf(tx, crmId, changes.mobile);
      return userView(
        await repo.updateUser(tx, row.id, { ...changes, ...mobile, ...(emailChanged ? { emailVerified: false } : {}) }),
      );
    });
  } catch (err) {
    if (sqlState(err) === '23505') {
      throw conflict(constraintName(err) === 'users_username_key' ? USERNAME_TAKEN : EMAIL_TAKEN);
    }
    throw err;
  }
}
