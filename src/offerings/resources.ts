import { bookingWindowOf, mergeBookingWindow, type BookingWindow } from './bookingWindow.js';
import { bookingLimitColumns, bookingLimitsOf, type BookingLimits } from './bookingLimits.js';
import type { Deps } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import * as partnerRepo from '../partners/repo.js';
import { retryOnUniqueViolation, type Queryable } from '../storage/db.js';
import { effectiveChannels, mergeChannels, type Channels, type StoredChannels } from './channels.js';
import type { ChannelType } from './contact.js';
import * as repo from './resourceRepo.js';

export interface AddressInput {
  city: string;
  street: string;
  number: string;
  zip: string;
  countryCode?: string;
}

/** The fields B3 and B4 accept; undefined leaves a field as it is, null clears it. */
export interface ResourceChanges {
  publicName?: string;
  internalName?: string;
  description?: string | null;
  products?: string[];
  contact?: string | null;
  contactProfileReference?: string | null;
  website?: string | null;
  address?: AddressInput | null;
  channels?: StoredChannels;
  imgUrl?: string | null;
  msgHelpText?: string | null;
  contactChannelType?: ChannelType | null;
  archived?: boolean;
  bookingWindow?: Partial<BookingWindow> | null;
  /** replaces the stored limits as a whole (a member left out is null); null: none */
  bookingLimits?: Partial<BookingLimits> | null;
}

export interface ResourceInput extends ResourceChanges {
  reference: string;
  publicName: string;
  internalName: string;
}

export interface ResourceView {
  reference: string;
  uuid: string;
  provider: string;
  publicName: string;
  internalName: string;
  description: string | null;
  contact: string | null;
  contactProfileReference: string | null;
  website: string | null;
  archived: boolean;
  products: string[];
  address: repo.Address | null;
  channels: Channels;
  imgUrl: string | null;
  msgHelpText: string | null;
  contactChannelType: ChannelType | null;
  bookingWindow: BookingWindow;
  bookingLimits: BookingLimits;
}

export function resourceView(row: repo.ResourceRow): ResourceView {
  return {
    reference: row.reference,
    uuid: row.id,
    provider: row.provider_reference,
    publicName: row.public_name,
    internalName: row.internal_name,
    description: row.description,
    contact: row.contact_reference,
    contactProfileReference: row.contact_profile_reference,
    website: row.website,
    archived: row.archived,
    products: row.product_references,
    address: row.address,
    channels: effectiveChannels(row.channels),
    imgUrl: row.img_url,
    msgHelpText: row.msg_help_text,
    contactChannelType: row.contact_channel_type,
    bookingWindow: bookingWindowOf(row.booking_window),
    bookingLimits: bookingLimitsOf(row),
  };
}

export const DEFAULT_COUNTRY_CODE = 'DE';

function normalizeAddress(address: AddressInput | null | undefined): repo.Address | null | undefined {
  if (!address) return address;
  const { city, street, number, zip } = address;
  return { city, street, number, zip, countryCode: (address.countryCode ?? DEFAULT_COUNTRY_CODE).toUpperCase() };
}

async function requireContactUser(tx: Queryable, crmId: string, reference: string) {
  const user = await partnerRepo.userByReference(tx, crmId, reference);
  if (!user) throw notFound(`no user found for body.contact ${reference}`);
  return user;
}

/** The provider-specific profile a resource may name: of this provider and of the contact user. */
async function requireContactProfile(
  tx: Queryable,
  crmId: string,
  providerId: string,
  userId: string,
  reference: string,
): Promise<string> {
  const rows = await tx.query<{ id: string; user_id: string; provider_id: string }>(
    `SELECT id, user_id, provider_id FROM contact_profiles
      WHERE crm_id = $1 AND reference = $2 AND provider_id IS NOT NULL`,
    [crmId, reference],
  );
  const own = rows.find((r) => r.provider_id === providerId);
  if (own && own.user_id === userId) return own.id;
  if (own) throw invalid(`body.contactProfileReference ${reference} does not belong to the user given in body.contact`);
  if (rows.length > 0) throw invalid(`body.contactProfileReference ${reference} is a profile of another provider`);
  throw notFound(`no contact profile found for body.contactProfileReference ${reference}`);
}

/** Turns the given changes into column values, looking up contact user, profile and products. */
async function columnsFor(
  tx: Queryable,
  crmId: string,
  providerId: string,
  changes: ResourceChanges,
  current: repo.ResourceRow | undefined,
): Promise<{ columns: repo.ResourceColumns; productIds?: string[] }> {
  const columns: repo.ResourceColumns = {
    public_name: changes.publicName,
    internal_name: changes.internalName,
    description: changes.description,
    website: changes.website,
    img_url: changes.imgUrl,
    msg_help_text: changes.msgHelpText,
    contact_channel_type: changes.contactChannelType,
    archived: changes.archived,
    address: normalizeAddress(changes.address),
    channels: changes.channels === undefined ? undefined : mergeChannels(current?.channels, changes.channels),
    booking_window:
      changes.bookingWindow === undefined
        ? undefined
        : mergeBookingWindow(current?.booking_window, changes.bookingWindow),
    ...(changes.bookingLimits === undefined ? {} : bookingLimitColumns(changes.bookingLimits)),
  };
  if (changes.contact === null) {
    columns.contact_user_id = null;
    columns.contact_profile_id = null;
  } else if (changes.contact !== undefined) {
    const user = await requireContactUser(tx, crmId, changes.contact);
    columns.contact_user_id = user.id;
    if (changes.contactProfileReference) {
      columns.contact_profile_id = await requireContactProfile(
        tx,
        crmId,
        providerId,
        user.id,
        changes.contactProfileReference,
      );
    } else if (changes.contactProfileReference === null || user.id !== current?.contact_user_id) {
      // a profile belongs to its user: another contact drops the old one
      columns.contact_profile_id = null;
    }
  }
  if (changes.contact === undefined && changes.contactProfileReference === null) columns.contact_profile_id = null;

  if (changes.products === undefined) return { columns };
  const references = [...new Set(changes.products)];
  const { ids, missing } = await repo.productIdsByReference(tx, providerId, references);
  if (missing.length > 0) throw notFound(`body.products: no product found for reference ${missing.join(', ')}`);
  return { columns, productIds: ids };
}

async function applyChanges(
  tx: Queryable,
  crmId: string,
  providerId: string,
  row: repo.ResourceRow,
  changes: ResourceChanges,
): Promise<ResourceView> {
  const { columns, productIds } = await columnsFor(tx, crmId, providerId, changes, row);
  await repo.updateResourceColumns(tx, row.id, columns);
  if (productIds) await repo.setResourceProducts(tx, row.id, productIds);
  return resourceView(await repo.resourceById(tx, row.id));
}

/**
 * B3. A new reference is created. An existing one is a 400 with onDuplicateRaise, otherwise it is
 * updated with the given fields. B3 answers 201 either way.
 */
export async function createResource(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: ResourceInput,
  onDuplicateRaise: boolean,
): Promise<ResourceView> {
  const { reference, ...changes } = input;
  return retryOnUniqueViolation(() =>
    deps.db.transaction(async (tx) => {
      const provider = await requireProvider(tx, crmId, providerRef);
      const existing = await repo.resourceByReference(tx, provider.id, reference);
      if (existing && onDuplicateRaise)
        throw invalid(`a resource with reference ${reference} already exists (onDuplicateRaise=true)`);
      if (existing) return applyChanges(tx, crmId, provider.id, existing, changes);
      const { columns, productIds } = await columnsFor(tx, crmId, provider.id, changes, undefined);
      const id = await repo.insertResource(
        tx,
        { crmId, providerId: provider.id, reference },
        {
          ...columns,
          public_name: input.publicName,
          internal_name: input.internalName,
          address: columns.address ?? null,
        },
      );
      if (productIds) await repo.setResourceProducts(tx, id, productIds);
      return resourceView(await repo.resourceById(tx, id));
    }),
  );
}

/** B4: the given fields only. */
export async function updateResource(
  deps: Deps,
  crmId: string,
  providerRef: string,
  resourceRef: string,
  changes: ResourceChanges,
): Promise<ResourceView> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const row = await repo.resourceByReference(tx, provider.id, resourceRef);
    if (!row) throw notFound(`no resource found for reference ${resourceRef}`);
    return applyChanges(tx, crmId, provider.id, row, changes);
  });
}

/** B5: every resource of the provider, archived ones included. */
export async function listResources(deps: Deps, crmId: string, providerRef: string): Promise<ResourceView[]> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  return (await repo.resourcesOfProvider(deps.db, provider.id)).map(resourceView);
}
