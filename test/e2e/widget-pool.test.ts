/**
 * The booking widget on a pool (issue 53, DESIGN 7.11) in real headless Chromium against the real
 * service: "anyone" with the pool's times, plus each member to choose from; booking "anyone" and
 * booking a chosen member; the done page names who was assigned; axe finds nothing serious or
 * moderate. The manage page of a booking made through the pool moves it to "anyone" at another time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { uniqueId } from '../helpers/app.js';
import {
  addTimeslots,
  expectAccessible,
  launchBrowser,
  setupWidgetResource,
  skipBrowserTests,
  slotAt,
  startService,
  type E2EService,
  type WidgetResource,
} from '../helpers/e2e.js';
import { createResource } from '../helpers/offeringsFixtures.js';

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
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return { page, errors };
}

/** Two stylists with the same times, in a pool "Any stylist". */
async function setupPool(): Promise<{
  r: WidgetResource;
  poolRef: string;
  second: { uuid: string; publicName: string };
}> {
  const r = await setupWidgetResource(svc, { resource: { publicName: 'Anna' }, dayOffsets: [1] });
  const second = await createResource(r.partner, r.provider.providerRef, {
    publicName: 'Ben',
    products: r.products.map((p) => p.reference),
  });
  await addTimeslots({ ...r, resource: second }, r.days);
  const poolRef = `${uniqueId('pool')}@crm`;
  const res = await r.partner.call('POST', `${r.base}/pools`, {
    reference: poolRef,
    publicName: 'Any stylist',
    members: [{ resourceReference: r.resource.reference }, { resourceReference: second.reference }],
  });
  expect(res.statusCode, res.body).toBe(201);
  return { r, poolRef, second };
}

async function fillAndBook(page: Page, email: string) {
  await page.getByRole('heading', { name: 'Your details' }).waitFor();
  await page.getByLabel('First name').fill('Erika');
  await page.getByLabel('Last name').fill('Muster');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Book appointment' }).click();
  await page.getByRole('heading', { name: 'Your appointment is booked' }).waitFor();
}

describe.skipIf(skipBrowserTests)('the widget on a pool', () => {
  it('books "anyone" and names the member assigned; then books a chosen member', async () => {
    const { r, poolRef, second } = await setupPool();
    const { page, errors } = await newPage();
    await page.goto(`${svc.baseUrl}/widget?ref=${encodeURIComponent(poolRef)}&lang=en`);
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Any stylist');
    const who = page.getByLabel('With', { exact: true });
    expect(await who.locator('option').allTextContents()).toEqual(['Anyone who is free', 'Anna', 'Ben']);
    await expectAccessible(page, 'pool slots (en)', true);

    // anyone: the first member by the pool's rule (never booked: the first listed)
    await slotAt(page, '09:00').click();
    await fillAndBook(page, 'erika.anyone@example.org');
    expect(await page.locator('.bw-assigned').textContent()).toBe('With: Anna');
    await expectAccessible(page, 'pool done (en)', true);

    // a chosen member: Ben at 10:00
    await page.getByRole('button', { name: 'Book another appointment' }).click();
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    const listed = page.waitForResponse((res) => res.url().includes(`/resources/${second.uuid}/upcoming_bookables`));
    await page.getByLabel('With', { exact: true }).selectOption({ label: 'Ben' });
    await listed;
    await slotAt(page, '10:00').click();
    await fillAndBook(page, 'erika.ben@example.org');
    expect(await page.locator('.bw-assigned').textContent()).toBe('With: Ben');

    const d5 = await r.partner.call('GET', `${r.base}/appointments`);
    const rows = (d5.json() as { resourceReference: string; start: string; participations: { email: string }[] }[])
      .filter((a) => a.participations.length > 0)
      .map((a) => [a.participations[0].email, a.resourceReference]);
    expect(rows.sort()).toEqual(
      [
        ['erika.anyone@example.org', r.resource.reference],
        [
          'erika.ben@example.org',
          (await r.partner.call('GET', `${r.base}/pools/${encodeURIComponent(poolRef)}`)).json().pool.members[1]
            .resourceReference,
        ],
      ].sort(),
    );
    expect(errors).toEqual([]);
  }, 120_000);

  it('the manage page of a pool booking moves it to "anyone": the pool picks the member free then', async () => {
    const { r, poolRef, second } = await setupPool();
    const ref = encodeURIComponent(poolRef);
    const slots = Object.entries(
      (await (await fetch(`${svc.baseUrl}/resources/${ref}/upcoming_bookables`)).json()) as Record<string, unknown>,
    ).flatMap(([k, v]) => (k === 'public_visible' ? [] : (v as { start: string; end: string; pool_uuid: string }[])));
    const res = await fetch(`${svc.baseUrl}/resources/${ref}/create_appointment_with_consumer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        start: slots[0].start,
        end: slots[0].end,
        pool_uuid: slots[0].pool_uuid,
        product_uuid: r.products[0].uuid,
        email: 'mia.pool@example.org',
        firstname: 'Mia',
        lastname: 'Move',
        locale: 'en',
      }),
    });
    expect(res.status).toBe(201);
    const booked = ((await res.json()) as { createdAppointment: { cancelLink: string; resource_name: string } })
      .createdAppointment;
    expect(booked.resource_name).toBe('Anna');
    const { page, errors } = await newPage();
    await page.goto(booked.cancelLink);
    await page.getByRole('heading', { name: 'Manage your booking' }).waitFor();
    await page.getByRole('button', { name: 'Choose another time' }).click();
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    // the picker is the pool's: anyone, or each member
    expect(await page.getByLabel('With', { exact: true }).locator('option').allTextContents()).toEqual([
      'Anyone who is free',
      'Anna',
      'Ben',
    ]);
    await slotAt(page, '10:00').click();
    await page.getByRole('button', { name: 'Confirm the move' }).click();
    await page.getByText('Your appointment has been moved.').waitFor();
    // Anna was booked through the pool last, Ben never: the pool gave the new time to Ben
    expect(await page.locator('dd').allTextContents()).toContain(second.publicName);
    expect(errors).toEqual([]);
  }, 120_000);
});
