/**
 * A consumer's answers to a product's booking questions (DESIGN 7.7) as a participation keeps them:
 * each with the question's label as it was at booking time, so a later edit of the questions
 * changes no stored answer. Every place that shows answers (mails, feed, pages) words them here.
 */
import { mailLocale } from './format.js';

export interface LocalizedText {
  de: string;
  en: string;
}

export type AnswerValue = string | boolean;

export interface StoredAnswer {
  key: string;
  label: LocalizedText;
  value: AnswerValue;
}

const YES_NO = { de: ['Ja', 'Nein'], en: ['Yes', 'No'] } as const;

/** The answers of a participations.answers value (NULL or not an array: none). */
export const storedAnswers = (raw: unknown): StoredAnswer[] => (Array.isArray(raw) ? (raw as StoredAnswer[]) : []);

/** One answer as a label and a value in the given language (de, en or a tag such as en_GB; else de). */
export function answerLine(answer: StoredAnswer, language: string | null | undefined): [string, string] {
  const lang = mailLocale(language);
  const label = answer.label?.[lang] || answer.label?.de || answer.key;
  const value = typeof answer.value === 'boolean' ? YES_NO[lang][answer.value ? 0 : 1] : String(answer.value);
  return [label, value];
}

/** "Label: value" lines, one per answer. */
export const answerLines = (answers: StoredAnswer[], language: string | null | undefined): string[] =>
  answers.map((a) => answerLine(a, language).join(': '));
