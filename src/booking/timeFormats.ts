/**
 * The date patterns of a request (A1's groupFormat and timeFormat, A3's and the reschedule's answer)
 * and its languageTag, checked: a bad one is a 400 naming its field.
 */
import { invalid } from '../errors.js';
import { compilePattern, localeFromLanguageTag, PatternError, type CompiledPattern } from './datePattern.js';

export const DEFAULT_GROUP_FORMAT = 'yyyy-MM-dd';
export const DEFAULT_TIME_FORMAT = 'yyyy-MM-dd HH:mm';

/** A pattern from the query as a formatter; 400 naming the field when it is not a valid pattern. */
export function timePattern(pattern: string | undefined, field: string, fallback: string): CompiledPattern {
  try {
    return compilePattern(pattern ?? fallback);
  } catch (err) {
    if (err instanceof PatternError) throw invalid(`${field}: ${err.message}`);
    throw err;
  }
}

export function localeOf(languageTag: string | undefined): string {
  try {
    return localeFromLanguageTag(languageTag);
  } catch (err) {
    if (err instanceof PatternError) throw invalid(`query.languageTag: ${err.message}`);
    throw err;
  }
}
