/**
 * The consumer of a public booking (docs/api.md, Consumer rules): who their e-mail says. The user
 * of the resource's crm with that e-mail, else a new one; and the provider's customer who is that
 * person (scheduling/matching_customer.sql). Missing names and mobile are filled in, never
 * overwritten. The rules run in the database (consumer_customer.sql), so the hot path of A3 can do
 * all its writes in one statement.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../storage/db.js';

export interface ConsumerInput {
  email: string;
  firstname: string;
  lastname: string;
  mobile?: string;
  /** the mobile in E.164 (partners/phoneNumbers.ts), compared instead of the text as typed */
  mobileE164?: string;
  /** two-letter language, already normalized */
  language?: string;
}

/** The provider's customer a public booking is made for, as the booking's mails show it. */
export interface ConsumerCustomer {
  id: string;
  user_name: string;
  email: string | null;
  mobile: string | null;
  language: string | null;
}

/** consumer_customer's argument (JSON): who books, at which provider. */
export function consumerArgument(provider: { id: string; crmId: string }, c: ConsumerInput): string {
  return JSON.stringify({
    crm_id: provider.crmId,
    provider_id: provider.id,
    email: c.email,
    first_name: c.firstname,
    last_name: c.lastname,
    mobile: c.mobile ?? null,
    mobile_e164: c.mobileE164 ?? null,
    language: c.language ?? null,
    customer_reference: `customer-${randomUUID()}`,
  });
}

/** The customer a booking of this consumer at this provider is made for; the user row stays locked. */
export async function consumerCustomer(
  tx: Queryable,
  provider: { id: string; crmId: string },
  c: ConsumerInput,
): Promise<ConsumerCustomer> {
  const [{ customer }] = await tx.query<{ customer: ConsumerCustomer }>('SELECT consumer_customer($1) AS customer', [
    consumerArgument(provider, c),
  ]);
  return customer;
}
