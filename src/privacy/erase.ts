/**
 * Erasure of a person's data (GDPR Art. 17; docs/privacy.md): by request of the partner, and by
 * the retention job. Both go through erase_personal_data (erase_personal_data.sql), in one
 * transaction with the lookup, so a crash leaves either everything or nothing erased.
 */
import type { Deps } from '../context.js';
import type { Queryable } from '../storage/db.js';
import { eventsWritten } from '../webhooks/events.js';
import { findPerson, type PersonKey } from './person.js';

export interface ErasedCounts {
  users: number;
  customers: number;
  participations: number;
  mails: number;
  webhookEvents: number;
  idempotencyRecords: number;
}

/** Who asked for an erasure, as the consumer.erased event says. */
export type ErasureSource = 'partner' | 'retention';

export interface Erasure {
  participationIds: string[];
  customerIds: string[];
  userIds: string[];
  needles: string[];
}

/** Runs erase_personal_data in the caller's transaction. */
export async function erasePersonalData(
  tx: Queryable,
  crmId: string,
  source: ErasureSource,
  e: Erasure,
): Promise<ErasedCounts> {
  const [{ counts }] = await tx.query<{ counts: ErasedCounts }>(
    'SELECT erase_personal_data($1, $2, $3::uuid[], $4::uuid[], $5::uuid[], $6::text[]) AS counts',
    [crmId, source, e.participationIds, e.customerIds, e.userIds, e.needles],
  );
  if (Object.values(counts).some((n) => n > 0)) eventsWritten();
  return counts;
}

/** POST /crms/{crmId}/consumer-data/erase: everything the crm holds on the person; a second call erases 0. */
export async function eraseConsumer(deps: Deps, crmId: string, input: PersonKey): Promise<ErasedCounts> {
  return deps.db.transaction(async (tx) =>
    erasePersonalData(tx, crmId, 'partner', await findPerson(tx, crmId, input, true)),
  );
}
