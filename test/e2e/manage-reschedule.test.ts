/**
 * The consumer's booking lifecycle in real Chromium (docs/lifecycle.md): moving a booking from the manage
 * page of the cancel link with the widget's slot picker, and the widget's Idempotency-Key when an
 * answer is lost on the network (the retry books once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  artifactPath,
  launchBrowser,
  partnerAppointments,
  setupWidgetResource,
  skipBrowserTests,
  startService,
  waitForMail,
  type E2EService,
  type WidgetResource,
} from '../helpers/e2e.js';

let svc: E2EService;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  svc = await startService();
  browser = await launchBrowser();
});
afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await svc?.close();
});

async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

type Listed = { start: string; end: string; timeslot_uuid: string };

async function listed(r: WidgetResource): Promise<Listed[]> {
  const res = await fetch(`${svc.baseUrl}/resources/${encodeURIComponent(r.resource.reference)}/upcoming_bookables`);
  if (res.status === 204) return [];
  const body = (await res.json()) as Record<string, unknown>;
  return Object.entries(body).flatMap(([k, v]) => (k === 'public_visible' ? [] : (v as Listed[])));
}

async function bookFirst(r: WidgetResource, email: string): Promise<{ cancelLink: string; start: string }> {
  const [slot] = await listed(r);
  const res = await fetch(
    `${svc.baseUrl}/resources/${encodeURIComponent(r.resource.reference)}/create_appointment_with_consumer`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        start: slot.start,
        end: slot.end,
        timeslot_uuid: slot.timeslot_uuid,
        product_uuid: r.products[0].uuid,
        email,
        firstname: 'Mia',
        lastname: 'Move',
        locale: 'en',
      }),
    },
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { createdAppointment: { cancelLink: string; start: string } }).createdAppointment;
}

describe.skipIf(skipBrowserTests)('manage page', () => {
  it('moves the booking to another time chosen in the slot picker', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [1], raster: 60 });
    const email = `move.${Date.now()}@consumer.example`;
    const booked = await bookFirst(r, email);
    expect(booked.start).toContain('T09:00');

    const { page, errors } = await newPage();
    await page.goto(booked.cancelLink);
    await page.getByRole('heading', { name: 'Manage your booking' }).waitFor();
    await page.getByRole('button', { name: 'Choose another time' }).click();
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    await page.screenshot({ path: artifactPath('manage-picker.png'), fullPage: true });
    await page.locator('.bw-slot[data-start*="T11:00:00"]').click();
    await page.getByText('Move the appointment to').waitFor();
    const move = page.waitForRequest((req) => req.url().includes('/reschedule'));
    await page.getByRole('button', { name: 'Confirm the move' }).click();
    expect((await move).headers()['idempotency-key']).toMatch(/.{16,}/);

    await page.getByText('Your appointment has been moved.').waitFor();
    expect(page.url()).toContain('rescheduled=1');
    expect(await page.locator('dd').first().textContent()).toContain('11:00–12:00');
    await page.screenshot({ path: artifactPath('manage-moved.png'), fullPage: true });
    expect(errors).toEqual([]);

    const mail = await waitForMail(
      svc.smtp,
      (m) => m.envelopeTo.includes(email) && m.subject.startsWith('Appointment moved'),
    );
    expect(mail.text).toMatch(/Previously: .*09:00–10:00/);
    const appointments = await partnerAppointments(r);
    const live = appointments.filter((a) =>
      (a as { participations?: { state: string }[] }).participations?.some((p) => p.state === 'BOOKED'),
    );
    expect(live.map((a) => (a as { start: string }).start)).toEqual([expect.stringContaining('T11:00')]);
    expect((await listed(r)).map((s) => s.start.slice(11, 16))).toEqual(['09:00', '10:00']);
  });
});

describe.skipIf(skipBrowserTests)('widget retries', () => {
  it('reuses the Idempotency-Key when the answer of a booking was lost, so the retry books exactly once', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [1] });
    const { page } = await newPage();
    const keys: string[] = [];
    let lost = false;
    await page.route('**/create_appointment_with_consumer**', async (route) => {
      keys.push(route.request().headers()['idempotency-key']);
      if (lost) return route.continue();
      lost = true;
      await route.fetch(); // the server books ...
      await route.abort('connectionreset'); // ... and the answer never arrives
    });
    await page.goto(`${svc.baseUrl}/widget?ref=${encodeURIComponent(r.resource.reference)}&lang=en`);
    await page.locator('.bw-slot', { hasText: '09:00' }).click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    await page.getByLabel('First name').fill('Rita');
    await page.getByLabel('Last name').fill('Retry');
    await page.getByLabel('Email').fill(`retry.${Date.now()}@consumer.example`);
    await page.getByRole('button', { name: 'Book appointment' }).click();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Your appointment is booked' }).waitFor();

    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
    const booked = (await partnerAppointments(r))
      .flatMap((a) => (a as { participations?: { state: string }[] }).participations ?? [])
      .filter((p) => p.state === 'BOOKED');
    expect(booked).toHaveLength(1);
  });
});
