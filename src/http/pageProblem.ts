/**
 * What is wrong with a request to a page behind a link (/cancel, /requests) that can never succeed
 * as sent, in the reader's language: which parameter of the address or which part of the form, or
 * that the data is too large or not a form. Never "try again later": that is for trouble on our side.
 */
import type { FastifyError } from 'fastify';
import type { MailLocale } from '../notifications/format.js';

interface Issue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

const TEXT = {
  de: {
    parameter: (name: string) => `Der Parameter „${name}“ in der Adresse ist ungültig.`,
    address: 'Die Adresse des Links ist ungültig.',
    notForm: 'Die gesendeten Daten sind kein Formular.',
    missing: (name: string) => `Im Formular fehlt „${name}“.`,
    field: (name: string) => `„${name}“ im Formular ist ungültig.`,
    tooLarge: 'Die gesendeten Daten sind zu groß.',
    mediaType: 'Die Daten wurden in einem Format gesendet, das diese Seite nicht annimmt: erwartet wird ein Formular.',
    other: 'Die Anfrage ist ungültig.',
    advice: 'Bitte öffnen Sie den Link aus Ihrer E-Mail noch einmal, ohne ihn zu verändern.',
  },
  en: {
    parameter: (name: string) => `The parameter “${name}” in the address is not valid.`,
    address: 'The address of the link is not valid.',
    notForm: 'The data sent is not a form.',
    missing: (name: string) => `The form lacks “${name}”.`,
    field: (name: string) => `“${name}” in the form is not valid.`,
    tooLarge: 'The data sent is too large.',
    mediaType: 'The data was sent in a format this page does not take: it expects a form.',
    other: 'The request is not valid.',
    advice: 'Please open the link from your email again, without changing it.',
  },
};

/** Whether a page answers the status with what is wrong (a request that cannot succeed as sent). */
export const isRequestProblem = (status: number) => status === 400 || status === 413 || status === 415;

/** The sentence saying what is wrong, then what to do, in `locale`. */
export function requestProblem(err: Error, status: number, locale: MailLocale): string {
  const t = TEXT[locale];
  const { validation, validationContext } = err as FastifyError;
  const issue = (validation as Issue[] | undefined)?.[0];
  let what = t.other;
  if (status === 413) what = t.tooLarge;
  else if (status === 415) what = t.mediaType;
  else if (issue) {
    const path = issue.instancePath.split('/').filter(Boolean);
    const missing = issue.params.missingProperty;
    const name = path[0] ?? (typeof missing === 'string' ? missing : undefined);
    if (validationContext === 'querystring') what = name ? t.parameter(name) : t.other;
    else if (validationContext === 'params') what = t.address;
    else if (!name) what = t.notForm;
    else what = path.length === 0 && issue.keyword === 'required' ? t.missing(name) : t.field(name);
  }
  return `${what} ${t.advice}`;
}
