/**
 * A consumer's data as the crm holds it (GDPR Art. 15 and 20; docs/privacy.md): their users,
 * customers, participations (with appointment, product, resource and booking answers) and the
 * mails sent to them. Times in the provider's zone, as everywhere in the API.
 */
import type { Deps } from '../context.js';
import { formatInstant } from '../scheduling/time.js';
import { findPerson, type PersonKey } from './person.js';

export interface ConsumerData {
  users: {
    reference: string | null;
    email: string;
    username: string;
    firstName: string | null;
    lastName: string | null;
    phone: string | null;
    mobile: string | null;
    language: string | null;
    createdAt: string;
  }[];
  customers: {
    customerReference: string;
    providerReference: string;
    userName: string;
    email: string | null;
    mobile: string | null;
    note: string | null;
    language: string | null;
    createdAt: string;
  }[];
  participations: {
    reference: string;
    uuid: string;
    providerReference: string;
    customerReference: string | null;
    state: string;
    message: string | null;
    note: string | null;
    locale: string | null;
    channelKey: string | null;
    clientIp: string | null;
    answers: unknown[];
    createdAt: string;
    appointment: { reference: string; uuid: string; start: string; end: string; state: string };
    product: { reference: string; name: string } | null;
    resource: { reference: string; name: string } | null;
  }[];
  mails: { type: string; to: string; status: string; createdAt: string; sentAt: string | null }[];
}

interface ParticipationRow {
  reference: string;
  id: string;
  provider_reference: string;
  customer_reference: string | null;
  state: string;
  message: string | null;
  note: string | null;
  locale: string | null;
  channel_key: string | null;
  client_ip: string | null;
  answers: unknown[] | null;
  created_at: Date;
  a_reference: string;
  a_id: string;
  start_at: Date;
  end_at: Date;
  a_state: string;
  time_zone: string;
  product_reference: string | null;
  product_name: string | null;
  resource_reference: string | null;
  resource_name: string | null;
}

export async function exportConsumerData(deps: Deps, crmId: string, input: PersonKey): Promise<ConsumerData> {
  const { db } = deps;
  const person = await findPerson(db, crmId, input);
  const users = await db.query<{
    reference: string | null;
    email: string;
    username: string;
    first_name: string | null;
    last_name: string | null;
    phone: string | null;
    mobile: string | null;
    language: string | null;
    created_at: Date;
  }>('SELECT * FROM users WHERE id = ANY ($1::uuid[]) ORDER BY created_at, id', [person.userIds]);
  const customers = await db.query<{
    reference: string;
    provider_reference: string;
    user_name: string;
    email: string | null;
    mobile: string | null;
    note: string | null;
    language: string | null;
    created_at: Date;
  }>(
    `SELECT c.*, pv.reference AS provider_reference FROM customers c JOIN providers pv ON pv.id = c.provider_id
      WHERE c.id = ANY ($1::uuid[]) ORDER BY c.created_at, c.id`,
    [person.customerIds],
  );
  const participations = await db.query<ParticipationRow>(
    `SELECT p.reference, p.id, pv.reference AS provider_reference, c.reference AS customer_reference, p.state,
            p.message, p.note, p.locale, p.channel_key, p.client_ip, p.answers, p.created_at,
            a.reference AS a_reference, a.id AS a_id, a.start_at, a.end_at, a.state AS a_state, pv.time_zone,
            pr.reference AS product_reference, COALESCE(a.product_name, pr.name) AS product_name,
            r.reference AS resource_reference, r.public_name AS resource_name
       FROM participations p
       JOIN appointments a ON a.id = p.appointment_id
       JOIN providers pv ON pv.id = p.provider_id
       LEFT JOIN customers c ON c.id = p.customer_id
       LEFT JOIN products pr ON pr.id = a.product_id
       LEFT JOIN resources r ON r.id = a.resource_id
      WHERE p.id = ANY ($1::uuid[]) ORDER BY p.created_at, p.id`,
    [person.participationIds],
  );
  const emails = [...users.map((u) => u.email), ...customers.map((c) => c.email), input.email]
    .filter((e): e is string => !!e)
    .map((e) => e.trim().toLowerCase());
  const mails = await db.query<{
    template: string;
    recipient: string;
    status: string;
    created_at: Date;
    sent_at: Date | null;
  }>(
    `SELECT template, recipient, status, created_at, sent_at FROM outbox
      WHERE crm_id = $1 AND lower(recipient) = ANY ($2::text[]) ORDER BY created_at, id`,
    [crmId, [...new Set(emails)]],
  );
  const zone = deps.config.defaultTimeZone;
  return {
    users: users.map((u) => ({
      reference: u.reference,
      email: u.email,
      username: u.username,
      firstName: u.first_name,
      lastName: u.last_name,
      phone: u.phone,
      mobile: u.mobile,
      language: u.language,
      createdAt: formatInstant(u.created_at, zone),
    })),
    customers: customers.map((c) => ({
      customerReference: c.reference,
      providerReference: c.provider_reference,
      userName: c.user_name,
      email: c.email,
      mobile: c.mobile,
      note: c.note,
      language: c.language,
      createdAt: formatInstant(c.created_at, zone),
    })),
    participations: participations.map((p) => ({
      reference: p.reference,
      uuid: p.id,
      providerReference: p.provider_reference,
      customerReference: p.customer_reference,
      state: p.state,
      message: p.message,
      note: p.note,
      locale: p.locale,
      channelKey: p.channel_key,
      clientIp: p.client_ip,
      answers: p.answers ?? [],
      createdAt: formatInstant(p.created_at, p.time_zone),
      appointment: {
        reference: p.a_reference,
        uuid: p.a_id,
        start: formatInstant(p.start_at, p.time_zone),
        end: formatInstant(p.end_at, p.time_zone),
        state: p.a_state,
      },
      product: p.product_reference === null ? null : { reference: p.product_reference, name: p.product_name ?? '' },
      resource: p.resource_reference === null ? null : { reference: p.resource_reference, name: p.resource_name ?? '' },
    })),
    mails: mails.map((m) => ({
      type: m.template,
      to: m.recipient,
      status: m.status,
      createdAt: formatInstant(m.created_at, zone),
      sentAt: m.sent_at && formatInstant(m.sent_at, zone),
    })),
  };
}
