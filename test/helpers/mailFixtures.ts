import { cancelLinkFor } from '../../src/booking/cancelToken.js';
import { enqueueParticipationMails } from '../../src/notifications/compose.js';
import type { MailTemplate } from '../../src/notifications/templateNames.js';
import { assertPlaceFree, insertAppointment, insertParticipation, lockAppointment, lockResource, type ParticipationRow } from '../../src/scheduling/capacity.js';
import type { Partner, TestApp } from './app.js';
import { uniqueId } from './app.js';
import { setupProvider } from './fixtures.js';
import { createProduct, createResource } from './offeringsFixtures.js';

export interface Offering {
  crmId: string;
  providerId: string;
  providerEmail: string;
  resourceId: string;
  productId: string;
}

/** A provider (C1/C3/C5), a product and a resource with an address (B1/B3), all through the API. */
export async function setupOffering(t: TestApp, p: Partner, options: { timeZone?: string; productName?: string } = {}): Promise<Offering> {
  const providerEmail = `${uniqueId('prov')}@provider.example`;
  const prov = await setupProvider(p, { providerEmail, ...(options.timeZone ? { timeZone: options.timeZone } : {}) });
  const product = await createProduct(p, prov.providerRef, { name: options.productName ?? 'Besichtigung' });
  const resource = await createResource(p, prov.providerRef, {
    publicName: 'Wohnung Hauptstraße',
    products: [product.reference],
    address: { street: 'Hauptstraße', number: '1', zip: '10115', city: 'Berlin' },
  });
  const [row] = await t.db.query<{ id: string }>('SELECT id FROM providers WHERE crm_id = $1 AND reference = $2', [p.crmId, prov.providerRef]);
  return { crmId: p.crmId, providerId: row.id, providerEmail, resourceId: resource.uuid, productId: product.uuid };
}

/** An appointment on the offering's resource, made by the booking kernel as every real path does. */
export async function addAppointment(t: TestApp, o: Offering, a: { start: string; end: string; capacity?: number }): Promise<string> {
  return t.db.transaction(async (tx) => {
    await lockResource(tx, o.resourceId);
    const row = await insertAppointment(tx, {
      crmId: o.crmId,
      providerId: o.providerId,
      resourceId: o.resourceId,
      productId: o.productId,
      reference: `${uniqueId('apt')}@crm`,
      start: new Date(a.start),
      end: new Date(a.end),
      capacity: a.capacity ?? 1,
      acceptBookings: true,
    });
    return row.id;
  });
}

export interface Participant {
  participationId: string;
  email: string;
  cancelLink: string;
  /** the path of the cancel link, for app.inject */
  cancelPath: string;
}

/**
 * A customer taking a place in the appointment (kernel: lock, assert a free place, insert), with
 * the given mails enqueued in the same transaction, as the booking flow does.
 */
export async function addParticipant(
  t: TestApp,
  o: Offering,
  appointmentId: string,
  options: { state?: ParticipationRow['state']; name?: string; locale?: string | null; language?: string | null; mails?: MailTemplate[] } = {},
): Promise<Participant> {
  const email = `${uniqueId('consumer')}@example.com`;
  const participationId = await t.db.transaction(async (tx) => {
    const [customer] = await tx.query<{ id: string }>(
      'INSERT INTO customers (crm_id, provider_id, reference, user_name, email, language) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
      [o.crmId, o.providerId, `${uniqueId('cust')}@crm`, options.name ?? 'Max Muster', email, options.language ?? null],
    );
    const appointment = await lockAppointment(tx, appointmentId);
    await assertPlaceFree(tx, appointment!, t.clock.now());
    const row = await insertParticipation(tx, {
      crmId: o.crmId,
      providerId: o.providerId,
      appointmentId,
      reference: `${uniqueId('part')}@crm`,
      customerId: customer.id,
      state: options.state ?? 'BOOKED',
      locale: options.locale ?? null,
    });
    await enqueueParticipationMails(tx, t.config, row.id, options.mails ?? []);
    return row.id;
  });
  const cancelLink = await cancelLinkFor(t.db, t.config, participationId);
  return { participationId, email, cancelLink, cancelPath: new URL(cancelLink).pathname };
}

export async function participationState(t: TestApp, participationId: string): Promise<string> {
  const [row] = await t.db.query<{ state: string }>('SELECT state FROM participations WHERE id = $1', [participationId]);
  return row.state;
}

export async function outboxOf(t: TestApp, crmId: string) {
  return t.db.query<{ id: string; template: string; recipient: string; locale: string; payload: Record<string, unknown> }>(
    'SELECT id, template, recipient, locale, payload FROM outbox WHERE crm_id = $1 ORDER BY created_at, template',
    [crmId],
  );
}
