/**
 * Addresses of timeslots and appointments: an object (request member `country` or `countryCode`,
 * answered as `countryCode`, default DE, as on resources) or a plain text such as a video-meeting note.
 */
export interface AddressInput {
  city: string;
  street: string;
  number: string;
  zip: string;
  country?: string;
  countryCode?: string;
}

export interface Address {
  city: string;
  street: string;
  number: string;
  zip: string;
  countryCode: string;
}

export type StoredAddress = Address | string;

export function normalizeAddress(input: AddressInput | string): StoredAddress;
export function normalizeAddress(input: AddressInput | string | null | undefined): StoredAddress | null | undefined;
export function normalizeAddress(input: AddressInput | string | null | undefined): StoredAddress | null | undefined {
  if (input === undefined || input === null || typeof input === 'string') return input;
  return {
    city: input.city,
    street: input.street,
    number: input.number,
    zip: input.zip,
    countryCode: input.countryCode ?? input.country ?? 'DE',
  };
}

/** jsonb parameter of an address column. */
export const addressParam = (address: StoredAddress | null | undefined) =>
  address === undefined || address === null ? null : JSON.stringify(address);
