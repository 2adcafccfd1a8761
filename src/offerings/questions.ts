/**
 * A product's booking questions (DESIGN 7.7): what B1 and the product update accept beyond their
 * schema (http/offeringSchemas.ts holds types, lengths and the key pattern), how they are stored,
 * and how the public flow shows them in the consumer's language.
 */
import { invalid } from '../errors.js';
import { mailLocale } from '../notifications/format.js';
import type { LocalizedText } from '../notifications/answers.js';

export const QUESTION_TYPES = ['text', 'textarea', 'select', 'checkbox', 'email', 'phone'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const MAX_QUESTIONS = 20;
export const QUESTION_KEY_PATTERN = '^[a-z][a-z0-9_]{0,39}$';
/** Longest answer per type; a text question may lower its own with maxLength. */
export const ANSWER_MAX: Record<QuestionType, number | null> = {
  text: 500,
  textarea: 2000,
  email: 254,
  phone: 32,
  select: null,
  checkbox: null,
};

export interface QuestionOption {
  value: string;
  label: LocalizedText;
}

export interface Question {
  key: string;
  type: QuestionType;
  required: boolean;
  label: LocalizedText;
  options?: QuestionOption[];
  maxLength?: number;
}

/** A question as B1 or the update sends it (the schema has checked each member). */
export type QuestionInput = Omit<Question, 'required'> & { required?: boolean };

/**
 * The questions a product stores, checked for what the schema cannot say (http/offeringSchemas.ts holds
 * the rest: count, types, lengths, options only for select, maxLength only for text and textarea): keys
 * unique in the product, option values unique in the question. `field` names the body member.
 */
export function checkQuestions(input: QuestionInput[] | null | undefined, field = 'body.questions'): Question[] {
  if (!input) return [];
  const keys = new Set<string>();
  return input.map((q, i) => {
    const at = `${field}.${i}`;
    if (keys.has(q.key)) throw invalid(`${at}.key ${q.key} is used by an earlier question: keys must be unique`);
    keys.add(q.key);
    const values = new Set<string>();
    for (const [j, o] of (q.options ?? []).entries()) {
      if (values.has(o.value)) {
        throw invalid(`${at}.options.${j}.value ${o.value} is used by an earlier option: values must be unique`);
      }
      values.add(o.value);
    }
    const max = ANSWER_MAX[q.type];
    return {
      key: q.key,
      type: q.type,
      required: q.required ?? false,
      label: { de: q.label.de, en: q.label.en },
      ...(q.type === 'select'
        ? { options: q.options!.map((o) => ({ value: o.value, label: { de: o.label.de, en: o.label.en } })) }
        : {}),
      ...(max !== null ? { maxLength: q.maxLength ?? max } : {}),
    };
  });
}

/** The questions of a products.questions value (anything else: none). */
export const storedQuestions = (raw: unknown): Question[] => (Array.isArray(raw) ? (raw as Question[]) : []);

/** A question as the public flow shows it: labels in one language. */
export interface PublicQuestion {
  key: string;
  type: QuestionType;
  required: boolean;
  label: string;
  options?: { value: string; label: string }[];
  maxLength?: number;
}

/** The questions in the consumer's language (de or en; another or none: de). */
export function publicQuestions(questions: Question[], language: string | null | undefined): PublicQuestion[] {
  const lang = mailLocale(language);
  return questions.map((q) => ({
    key: q.key,
    type: q.type,
    required: q.required,
    label: q.label[lang],
    ...(q.options ? { options: q.options.map((o) => ({ value: o.value, label: o.label[lang] })) } : {}),
    ...(q.maxLength !== undefined ? { maxLength: q.maxLength } : {}),
  }));
}
