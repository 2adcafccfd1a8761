import { invalid } from '../errors.js';

export const BRANCHES = ['real-estate', 'facilities', 'handyman', 'sports-and-leisure', 'misc'] as const;
export type Branch = (typeof BRANCHES)[number];

export function isBranch(value: string): value is Branch {
  return (BRANCHES as readonly string[]).includes(value);
}

/** uniqueId@platformName: both parts present, no whitespace. */
export function isReference(value: string): boolean {
  return /^[^@\s]+@[^@\s]+$/.test(value);
}

const USERNAME_FORBIDDEN = /[/?:&#\\]/;

export function assertUsername(username: string): void {
  if (USERNAME_FORBIDDEN.test(username)) {
    throw invalid('username must not contain slash, question mark, colon, ampersand, hash or backslash');
  }
}

/** The n-th generated variant of an email: a numbered plus-suffix in the local part (a@b.c -> a+1@b.c). */
export function emailVariant(email: string, n: number): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return `${email}+${n}`;
  return `${email.slice(0, at)}+${n}${email.slice(at)}`;
}
