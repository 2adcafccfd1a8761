import { expect } from 'vitest';
import { cancelLinkFor } from '../../src/notifications/cancelToken.js';
import type { TestApp } from './app.js';
import { uniqueId } from './app.js';
import {
  createAppointment,
  createCustomer,
  participate,
  setupScheduling,
  type Scheduling,
} from './schedulingFixtures.js';

export interface BookedParticipant {
  s: Scheduling;
  appointmentReference: string;
  participationReference: string;
  participationId: string;
  email: string;
  providerEmail: string;
  cancelLink: string;
  /** the path of the cancel link, for app.inject */
  cancelPath: string;
}

/**
 * A participant in a capacity-1 appointment, all through the API: provider, product and resource
 * with an address (C, B1, B3), the appointment (D6, wall-clock times in the provider's zone), the
 * customer (D12) and the participation (D9; DELETED by D10 afterwards).
 */
export async function bookedParticipant(
  t: TestApp,
  options: {
    state?: 'BOOKED' | 'REQUESTED' | 'DELETED';
    language?: string;
    start?: string;
    end?: string;
    timeZone?: string;
  } = {},
): Promise<BookedParticipant> {
  const s = await setupScheduling(t, {
    timeZone: options.timeZone,
    resource: {
      publicName: 'Wohnung Hauptstraße',
      address: { street: 'Hauptstraße', number: '1', zip: '10115', city: 'Berlin' },
    },
  });
  const appointment = await createAppointment(s, {
    start: options.start ?? '2026-06-12T10:00',
    end: options.end ?? '2026-06-12T11:00',
    capacity: 1,
  });
  const customer = await createCustomer(s, options.language ? { language: options.language } : {});
  const participationReference = `${uniqueId('part')}@crm`;
  const state = options.state === 'REQUESTED' ? 'REQUESTED' : 'BOOKED';
  const res = await participate(
    s,
    {
      reference: participationReference,
      appointmentReference: appointment.reference,
      customerReference: customer.customerReference,
      state,
    },
    { sendMails: 'false' },
  );
  expect(res.statusCode, res.body).toBe(201);
  if (options.state === 'DELETED') {
    const del = await s.p.call(
      'POST',
      `${s.base}/participations/${encodeURIComponent(participationReference)}`,
      { state: 'DELETED' },
      { sendMails: 'false' },
    );
    expect(del.statusCode, del.body).toBe(200);
  }
  const [row] = await t.db.query<{ id: string; provider_email: string }>(
    `SELECT pa.id, pv.email AS provider_email FROM participations pa JOIN providers pv ON pv.id = pa.provider_id
       WHERE pa.crm_id = $1 AND pa.reference = $2`,
    [s.p.crmId, participationReference],
  );
  const cancelLink = await cancelLinkFor(t.db, t.config, row.id);
  return {
    s,
    appointmentReference: appointment.reference,
    participationReference,
    participationId: row.id,
    email: customer.email,
    providerEmail: row.provider_email,
    cancelLink,
    cancelPath: new URL(cancelLink).pathname,
  };
}

export async function participationState(t: TestApp, participationId: string): Promise<string> {
  const [row] = await t.db.query<{ state: string }>('SELECT state FROM participations WHERE id = $1', [
    participationId,
  ]);
  return row.state;
}

export async function outboxOf(t: TestApp, crmId: string) {
  return t.db.query<{
    id: string;
    template: string;
    recipient: string;
    locale: string;
    payload: Record<string, unknown>;
  }>('SELECT id, template, recipient, locale, payload FROM outbox WHERE crm_id = $1 ORDER BY created_at, template', [
    crmId,
  ]);
}
