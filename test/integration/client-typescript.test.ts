/**
 * The typed client (clients/typescript) against the service on a real port: a partner sets up a
 * provider and subscribes to webhooks, a consumer books a slot, and the receiver verifies the
 * delivery with verifyWebhook.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBookingClient,
  verifyWebhook,
  WebhookVerificationError,
  type BookingClient,
} from '../../clients/typescript/src/index.js';
import { newPartner, uniqueId } from '../helpers/app.js';
import { startWebhookTest, type WebhookTest } from '../helpers/webhookFixtures.js';

let t: WebhookTest;
let baseUrl: string;
beforeAll(async () => {
  t = await startWebhookTest();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

const day = DateTime.now().setZone('Europe/Berlin').plus({ days: 3 }).toISODate()!;

describe('the typed TypeScript client', () => {
  it('sets up a provider, books a slot through the public flow and verifies the webhook', async () => {
    const partner = await newPartner(t);
    const crmId = partner.crmId;
    const api: BookingClient = createBookingClient({ baseUrl, apiKey: partner.key });
    const id = uniqueId('c');

    const hook = await api.POST('/crms/{crmId}/webhooks', {
      params: { path: { crmId } },
      body: { url: `${t.receiver.url}/client`, events: ['participation.booked'] },
    });
    expect(hook.response.status).toBe(201);
    const secret = hook.data!.webhook.secret;

    const user = await api.POST('/crms/{crmId}/user', {
      params: { path: { crmId } },
      body: { reference: `${id}@crm`, email: `${id}@example.com`, username: id, lastName: 'Owner' },
    });
    expect(user.response.status, JSON.stringify(user.error)).toBe(201);
    const account = await api.POST('/crms/{crmId}/account', {
      params: { path: { crmId } },
      body: { accountReference: `acc-${id}@crm`, ownerReference: `${id}@crm`, branch: 'real-estate' },
    });
    expect(account.response.status, JSON.stringify(account.error)).toBe(201);
    const provider = await api.POST('/crms/{crmId}/provider', {
      params: { path: { crmId } },
      body: {
        reference: `prov-${id}@crm`,
        ownerReference: `${id}@crm`,
        accountReference: `acc-${id}@crm`,
        name: 'Acme Estates',
        email: 'office@acme.example',
      },
    });
    expect(provider.response.status, JSON.stringify(provider.error)).toBe(201);
    const path = { crmId, providerRef: `prov-${id}@crm` };
    const product = await api.POST('/crms/{crmId}/provider/{providerRef}/products', {
      params: { path },
      body: { reference: `prod-${id}@crm`, name: 'Viewing' },
    });
    expect(product.response.status, JSON.stringify(product.error)).toBe(201);
    const resource = await api.POST('/crms/{crmId}/provider/{providerRef}/resources', {
      params: { path },
      body: { reference: `res-${id}@crm`, publicName: 'Flat 1', internalName: 'F1', products: [`prod-${id}@crm`] },
    });
    expect(resource.response.status, JSON.stringify(resource.error)).toBe(201);
    const slots = await api.POST('/crms/{crmId}/provider/{providerRef}/timeslots', {
      params: { path },
      body: {
        timeslots: [
          {
            resourceReference: `res-${id}@crm`,
            start: `${day}T09:00`,
            end: `${day}T10:00`,
            raster: 30,
            defaultCapacity: 1,
            defaultAcceptBookings: true,
            state: 'BOOKABLE',
          },
        ],
      },
    });
    expect(slots.response.status, JSON.stringify(slots.error)).toBe(201);

    const publicApi = createBookingClient({ baseUrl });
    const ref = resource.data!.uuid;
    const listed = await publicApi.GET('/resources/{ref}/upcoming_bookables', { params: { path: { ref } } });
    expect(listed.response.status).toBe(200);
    const [first] = Object.entries(listed.data!).flatMap(([key, v]) =>
      key === 'public_visible' ? [] : (v as Exclude<typeof v, boolean>),
    );
    expect(first.start).toBe(
      `${day}T09:00:00${DateTime.fromISO(`${day}T09:00`, { zone: 'Europe/Berlin' }).toFormat('ZZ')}`,
    );

    const held = await publicApi.POST('/rest/1/resources/{ref}/reserve_appointment', {
      params: { path: { ref } },
      body: {
        timeslot_uuid: first.timeslot_uuid,
        product_uuid: product.data!.product.uuid,
        from: first.start,
        to: first.end,
      },
    });
    expect(held.response.status, JSON.stringify(held.error)).toBe(201);
    const booked = await publicApi.POST('/resources/{ref}/create_appointment_with_consumer', {
      params: { path: { ref } },
      body: {
        start: first.start,
        end: first.end,
        timeslot_uuid: first.timeslot_uuid ?? undefined,
        product_uuid: product.data!.product.uuid,
        placeholder_id: held.data!.participation.customer_uuid,
        email: `${id}@consumer.example`,
        firstname: 'Erika',
        lastname: 'Muster',
      },
    });
    expect(booked.response.status, JSON.stringify(booked.error)).toBe(201);
    expect(booked.data!.createdAppointment.capacity_left).toBe(0);

    const taken = await publicApi.POST('/resources/{ref}/create_appointment_with_consumer', {
      params: { path: { ref } },
      body: {
        start: first.start,
        end: first.end,
        timeslot_uuid: first.timeslot_uuid ?? undefined,
        email: `${id}-2@consumer.example`,
        firstname: 'Max',
        lastname: 'Muster',
      },
    });
    expect(taken.response.status).toBe(412);
    expect(taken.error!.errors[0].errorCode).toBe('201');

    // a rule across query parameters is one object parameter: its members go out as plain parameters
    const scope = { ref: [ref] };
    const products = await publicApi.POST('/products/active_products', { params: { query: { scope } } });
    expect(products.response.status, JSON.stringify(products.error)).toBe(200);
    expect(products.data!.products.map((p) => p.uuid)).toEqual([product.data!.product.uuid]);
    const person = { email: `${id}@consumer.example` };
    const exported = await api.GET('/crms/{crmId}/consumer-data', { params: { path: { crmId }, query: { person } } });
    expect(exported.response.status, JSON.stringify(exported.error)).toBe(200);
    expect(exported.data!.consumer.participations).toHaveLength(1);

    await t.receiver.waitFor((r) => r.some((x) => x.path === '/client'));
    const delivery = t.receiver.received.find((x) => x.path === '/client')!;
    const event = verifyWebhook(secret, delivery.headers as Record<string, string>, delivery.body);
    expect(event.id).toBe(delivery.headers['webhook-id']);
    expect(event.type).toBe('participation.booked');
    if (event.type === 'participation.booked') {
      expect(event.data.participation.uuid).toBe(held.data!.participation.uuid);
      expect(event.data.customer?.email).toBe(`${id}@consumer.example`);
    }
    expect(() =>
      verifyWebhook(secret, delivery.headers as Record<string, string>, delivery.body.replace('BOOKED', 'CANCELED')),
    ).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, {}, delivery.body)).toThrow(/webhook-id/);
  });
});
