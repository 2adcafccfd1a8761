export const BRANCHES = ['real-estate', 'facilities', 'handyman', 'sports-and-leisure', 'misc'] as const;
export type Branch = (typeof BRANCHES)[number];

export function isBranch(value: string): value is Branch {
  return (BRANCHES as readonly string[]).includes(value);
}

/** uniqueId@platformName: both parts present, no whitespace. */
export function isReference(value: string): boolean {
  return /^[^@\s]+@[^@\s]+$/.test(value);
}

/** A username: no slash, question mark, colon, ampersand, hash or backslash (and no NUL); the schema holds it. */
export const USERNAME_PATTERN = '^[^/?:&#\\\\\\u0000]+$';
export const USERNAME_RULE = 'must not contain slash, question mark, colon, ampersand, hash or backslash';

/** The n-th generated variant of an email: a numbered plus-suffix in the local part (a@b.c -> a+1@b.c). */
export function emailVariant(email: string, n: number): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return `${email}+${n}`;
  return `${email.slice(0, at)}+${n}${email.slice(at)}`;
}
