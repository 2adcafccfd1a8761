/**
 * A3's answers (DESIGN 7.7) checked against the product's questions: every broken rule is a 400
 * naming the key, before anything is booked. The stored answers carry each question's label.
 */
import { invalid } from '../errors.js';
import type { StoredAnswer } from '../notifications/answers.js';
import type { Question } from '../offerings/questions.js';
import { phoneE164 } from '../partners/phoneNumbers.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Why one answer breaks its question's rules; null when it is fine. `value` is present and not
 * blank; `country`: the provider's, for phone numbers without a country code.
 */
function problemOf(q: Question, value: unknown, country: string): string | null {
  if (q.type === 'checkbox') {
    if (typeof value !== 'boolean') return 'must be true or false';
    return q.required && !value ? 'must be true: the question is required' : null;
  }
  if (typeof value !== 'string')
    return q.type === 'select' ? `must be one of ${q.options!.map((o) => o.value).join(', ')}` : 'must be text';
  if (q.type === 'select')
    return q.options!.some((o) => o.value === value)
      ? null
      : `must be one of ${q.options!.map((o) => o.value).join(', ')}`;
  if (q.maxLength !== undefined && [...value].length > q.maxLength)
    return `must have at most ${q.maxLength} characters`;
  if (q.type === 'email' && !EMAIL.test(value)) return 'must be an email address, e.g. name@example.com';
  if (q.type === 'phone' && !phoneE164(value, country)) {
    return (
      `must be a phone number: with its area code (e.g. (030) 1234-5678) or country code (e.g. ` +
      `+49 30 12345678); read for ${country}`
    );
  }
  return null;
}

const blank = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/**
 * The answers to keep with the participation (phone numbers as typed), in the questions' order
 * (null when there are none), or a 400 naming every key that breaks a rule: a missing required
 * answer, a wrong type, a value not among the options, a key the product does not ask, an
 * over-long text, a phone number no country could have. `country`: the provider's (phoneNumbers.ts).
 */
export function checkAnswers(
  questions: Question[],
  answers: Record<string, unknown> | undefined,
  country: string,
  field = 'body.answers',
): StoredAnswer[] | null {
  const given = answers ?? {};
  const problems: string[] = [];
  for (const key of Object.keys(given)) {
    if (!questions.some((q) => q.key === key)) problems.push(`${field}.${key} is not a question of this product`);
  }
  const stored: StoredAnswer[] = [];
  for (const q of questions) {
    const raw = given[q.key];
    if (blank(raw)) {
      if (q.required) problems.push(`${field}.${q.key} is required`);
      continue;
    }
    const value = typeof raw === 'string' ? raw.trim() : raw;
    const problem = problemOf(q, value, country);
    if (problem) problems.push(`${field}.${q.key} ${problem}`);
    else stored.push({ key: q.key, label: q.label, value: value as string | boolean });
  }
  if (problems.length > 0) throw invalid(problems.join('; '));
  return stored.length > 0 ? stored : null;
}
