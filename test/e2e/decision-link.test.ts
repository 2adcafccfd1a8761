/**
 * The provider's decision link in real headless Chromium (JavaScript off) against the real service:
 * the link is taken from the request mail that arrived over SMTP, the page is checked with axe-core
 * and by keyboard, and the decision's result is checked through the partner API and the consumer's mail.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  artifactPath,
  focusedKey,
  launchBrowser,
  partnerAppointments,
  setupWidgetResource,
  skipBrowserTests,
  startService,
  tabTo,
  waitForMail,
  type E2EService,
  type WidgetResource,
} from '../helpers/e2e.js';
import { uniqueId } from '../helpers/app.js';

const require = createRequire(import.meta.url);

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

/** A page with JavaScript off: the decision page must work without it. */
async function newPage(): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 800, height: 900 },
    javaScriptEnabled: false,
    locale: 'de-DE',
  });
  contexts.push(context);
  return context.newPage();
}

/** A consumer's request (A1, then A3) by Rosa {lastname} with a message; resolves to the consumer's email. */
async function request(r: WidgetResource, lastname: string, message: string, locale = 'de'): Promise<string> {
  const ref = encodeURIComponent(r.resource.reference);
  const listed = (await (await fetch(`${svc.baseUrl}/resources/${ref}/upcoming_bookables`)).json()) as Record<
    string,
    unknown
  >;
  const [slot] = Object.entries(listed).flatMap(([k, v]) =>
    k === 'public_visible' ? [] : (v as { start: string; end: string; timeslot_uuid: string }[]),
  );
  const email = `${uniqueId('req')}@consumer.example`;
  const res = await fetch(`${svc.baseUrl}/resources/${ref}/create_appointment_with_consumer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      start: slot.start,
      end: slot.end,
      timeslot_uuid: slot.timeslot_uuid,
      product_uuid: r.products[0].uuid,
      email,
      firstname: 'Rosa',
      lastname,
      message,
      locale,
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return email;
}

/** The decision link, read from the request-to-confirm mail the provider side received. */
async function linkFromMail(consumerName: string): Promise<string> {
  const mail = await waitForMail(
    svc.smtp,
    (m) =>
      /^(Bitte bestätigen|Please confirm)/.test(m.subject) &&
      m.subject.includes(consumerName) &&
      /\/requests\//.test(m.text ?? ''),
  );
  return /https?:\/\/\S+\/requests\/\S+/.exec(mail.text!)![0];
}

async function expectNoAxeViolations(page: Page): Promise<void> {
  // axe runs as a script the test adds; the page's own JavaScript stays off
  const context = await browser.newContext({ viewport: { width: 800, height: 900 } });
  contexts.push(context);
  const checked = await context.newPage();
  await checked.setContent(await page.content());
  await checked.addScriptTag({ path: require.resolve('axe-core') });
  const result = await checked.evaluate(async () =>
    (window as unknown as { axe: { run(): Promise<{ violations: { id: string; help: string }[] }> } }).axe.run(),
  );
  expect(result.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
}

describe.skipIf(skipBrowserTests)('decision link in the browser', () => {
  it("opens the request mail's link, confirms by keyboard, and the consumer gets the confirmation", async () => {
    const r = await setupWidgetResource(svc, {
      dayOffsets: [2],
      resource: { channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } } },
    });
    const consumerEmail = await request(r, 'Request', 'Ich komme mit Hund.');
    const link = await linkFromMail('Rosa Request');

    const page = await newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Buchungsanfrage' }).waitFor();
    expect(await page.getByText('Rosa Request möchte diesen Termin buchen.').count()).toBe(1);
    expect(await page.getByText('Ich komme mit Hund.').count()).toBe(1);
    expect(await page.getByLabel(/Grund der Ablehnung/).count()).toBe(1);
    await page.screenshot({ path: artifactPath('decision-page.png'), fullPage: true });
    await expectNoAxeViolations(page);

    // keyboard only: the first stop is the confirm button, with a visible focus ring
    expect(await tabTo(page, 'button:Anfrage bestätigen', 5)).toBe('button:Anfrage bestätigen');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Anfrage bestätigt' }).waitFor();
    expect(await focusedKey(page)).toBeNull();

    const [appointment] = await partnerAppointments(r);
    expect(appointment.participations.map((p: { state: string }) => p.state)).toEqual(['BOOKED']);
    const confirmation = await waitForMail(
      svc.smtp,
      (m) => m.envelopeTo.includes(consumerEmail) && m.subject.startsWith('Buchungsbestätigung'),
    );
    expect(confirmation.calendar?.method).toBe('REQUEST');

    // the same link again: already decided, nothing to click
    const again = await page.goto(link);
    expect(again?.status()).toBe(409);
    expect(await page.getByRole('button').count()).toBe(0);
  });

  it('declines in English with a reason that reaches the consumer', async () => {
    const r = await setupWidgetResource(svc, {
      dayOffsets: [3],
      resource: { channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } } },
    });
    const consumerEmail = await request(r, 'Declined', 'Any time after 10.', 'en');
    const link = await linkFromMail('Rosa Declined');

    const page = await newPage();
    await page.goto(`${link}?lang=en`);
    await page.getByRole('heading', { name: 'Booking request' }).waitFor();
    await page.getByLabel(/Reason for declining/).fill('The flat has been let, sorry.');
    await page.getByRole('button', { name: 'Decline request' }).click();
    await page.getByRole('heading', { name: 'Request declined' }).waitFor();

    const [appointment] = await partnerAppointments(r);
    expect(appointment.participations.map((p: { state: string }) => p.state)).toEqual(['CANCELED']);
    const declined = await waitForMail(
      svc.smtp,
      (m) => m.envelopeTo.includes(consumerEmail) && m.subject.startsWith('Request declined'),
    );
    expect(declined.text).toContain('The flat has been let, sorry.');
  });
});
