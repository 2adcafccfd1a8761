import type { Queryable } from '../storage/db.js';
import type { MailTemplate } from './templateNames.js';

export interface OutboxMail {
  crmId: string | null;
  template: MailTemplate;
  recipient: string;
  locale: string;
  /** everything the template needs, so the mail renders without further lookups */
  payload: Record<string, unknown>;
}

const listeners = new Set<() => void>();

/**
 * Tells this process's mail worker that rows were written, so a mail leaves promptly instead of at
 * the next poll. The rows may not be committed yet: the worker looks shortly after, and polls anyway.
 */
export function onMailEnqueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Tells the mail workers of this process that outbox rows were written (by enqueueMails, or by a database function).
 */
export function mailsWritten(): void {
  for (const listener of listeners) listener();
}

/**
 * The next SEQUENCE of the calendar parts about the participation `$param` (compose.ts
 * nextCalendarSequence): 0 for the first, then one higher each time; nothing when `$param` is NULL.
 */
export const calendarSequenceSql = (param: string) =>
  `INSERT INTO mail_calendar_sequences AS m (participation_id, sequence) SELECT ${param}::uuid, 0
    WHERE ${param}::uuid IS NOT NULL
   ON CONFLICT (participation_id) DO UPDATE SET sequence = m.sequence + 1
   RETURNING sequence`;

/**
 * Writes mails to the outbox inside the caller's transaction (one statement); the mail worker
 * delivers them. `firstCalendarOf`: a new participation whose mails carry its first calendar part
 * (SEQUENCE 0, their payloads' default), recorded in the same statement.
 */
export async function enqueueMails(
  tx: Queryable,
  mails: OutboxMail[],
  firstCalendarOf: string | null = null,
): Promise<void> {
  if (mails.length === 0) return;
  await tx.query(
    `WITH sequence AS (${calendarSequenceSql('$6')})
     INSERT INTO outbox (crm_id, template, recipient, locale, payload)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[])`,
    [
      mails.map((m) => m.crmId),
      mails.map((m) => m.template),
      mails.map((m) => m.recipient),
      mails.map((m) => m.locale),
      mails.map((m) => JSON.stringify(m.payload)),
      firstCalendarOf,
    ],
  );
  mailsWritten();
}
