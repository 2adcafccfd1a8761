/**
 * "Manage my bookings" in the widget (DESIGN 7.12) in real headless Chromium against the real
 * service: the way in below the steps, the address form (errors tied to the field), "check your
 * mail", the mail with the link, and the page behind it cancelling a booking. axe finds no serious,
 * critical or moderate violation on any of them. Screenshots go to test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  artifactPath,
  expectAccessible,
  focusedKey,
  launchBrowser,
  setupWidgetResource,
  skipBrowserTests,
  slotAt,
  startService,
  waitForMail,
  type E2EService,
  type WidgetResource,
} from '../helpers/e2e.js';
import { uniqueId } from '../helpers/app.js';

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

async function newPage(locale: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 }, locale });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return { page, errors };
}

/** A3 through the public API for the first free slot of the resource. */
async function bookDirectly(r: WidgetResource, email: string): Promise<void> {
  const list = await svc.app.inject({
    method: 'GET',
    url: `/resources/${encodeURIComponent(r.resource.reference)}/upcoming_bookables`,
  });
  const [slot] = Object.entries(list.json()).flatMap(([k, v]) =>
    k === 'public_visible' ? [] : (v as { start: string; end: string; timeslot_uuid: string }[]),
  );
  const res = await svc.app.inject({
    method: 'POST',
    url: `/resources/${encodeURIComponent(r.resource.reference)}/create_appointment_with_consumer`,
    payload: {
      start: slot.start,
      end: slot.end,
      timeslot_uuid: slot.timeslot_uuid,
      product_uuid: r.products[0].uuid,
      email,
      firstname: 'Mara',
      lastname: 'Muster',
      locale: 'en',
    },
  });
  expect(res.statusCode, res.body).toBe(201);
}

describe.skipIf(skipBrowserTests)('"Manage my bookings" in the widget', () => {
  it('asks for the address, says to check the mail, and the mailed link shows and cancels the booking', async () => {
    const r = await setupWidgetResource(svc);
    const email = `${uniqueId('mara')}@consumer.example`;
    await bookDirectly(r, email);
    const { page, errors } = await newPage('en-GB');
    await page.goto(`${svc.baseUrl}/widget?ref=${encodeURIComponent(r.resource.reference)}&lang=en`);
    await slotAt(page, '09:30').first().waitFor();

    await page.getByRole('button', { name: 'Manage my bookings' }).click();
    await page.getByRole('heading', { name: 'Manage my bookings' }).waitFor();
    expect(await focusedKey(page)).toMatch(/^h\d:Manage my bookings$/);
    await expectAccessible(page, 'manage form', true);

    // a wrong address is marked at its field, and nothing is sent
    const field = page.getByLabel('Email');
    await field.fill('not-an-address');
    await page.getByRole('button', { name: 'Send me the link' }).click();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await focusedKey(page)).toBe('field-manage-email');
    await expectAccessible(page, 'manage form with an error', true);

    await field.fill(email.toUpperCase());
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await page.screenshot({ path: artifactPath('widget-my-bookings-sent.png') });
    await expectAccessible(page, 'check your mail', true);

    const mail = await waitForMail(
      svc.smtp,
      (m) => m.envelopeTo.map((a) => a.toLowerCase()).includes(email) && /^Your bookings at /.test(m.subject ?? ''),
      25_000,
    );
    const link = /https?:\/\/\S+\/my-bookings\/[\w.-]+/.exec(mail.text ?? '')![0];

    // back to the times
    await page.getByRole('button', { name: 'Back' }).click();
    await slotAt(page, '09:30').first().waitFor();

    const list = await newPage('en-GB');
    await list.page.goto(link);
    await list.page.getByRole('heading', { name: 'My bookings' }).waitFor();
    expect(await list.page.getByRole('button', { name: 'Cancel the appointment' }).count()).toBe(1);
    expect(await list.page.getByRole('link', { name: 'Choose another time' }).count()).toBe(1);
    await list.page.screenshot({ path: artifactPath('my-bookings-page.png') });
    await expectAccessible(list.page, 'my bookings page', true);
    await list.page.getByRole('button', { name: 'Cancel the appointment' }).click();
    await list.page.getByRole('heading', { name: 'Appointment cancelled' }).waitFor();
    await list.page.goto(link);
    await list.page.getByText('cancelled', { exact: true }).waitFor();
    expect(await list.page.getByRole('button', { name: 'Cancel the appointment' }).count()).toBe(0);
    expect([...errors, ...list.errors]).toEqual([]);
  }, 90_000);

  it('offers the same in German', async () => {
    const r = await setupWidgetResource(svc);
    const { page, errors } = await newPage('de-DE');
    await page.goto(`${svc.baseUrl}/widget?ref=${encodeURIComponent(r.resource.reference)}&lang=de`);
    await slotAt(page, '09:00').first().waitFor();
    await page.getByRole('button', { name: 'Meine Buchungen verwalten' }).click();
    await page.getByLabel('E-Mail').fill(`${uniqueId('x')}@consumer.example`);
    await page.getByRole('button', { name: 'Link zusenden' }).click();
    await page.getByRole('heading', { name: 'Bitte sehen Sie in Ihr Postfach' }).waitFor();
    await expectAccessible(page, 'Postfach', true);
    expect(errors).toEqual([]);
  }, 60_000);
});
