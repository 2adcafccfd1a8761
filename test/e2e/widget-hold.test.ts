/**
 * The widget and the reservation hold, against a service whose hold is 10 minutes
 * (RESERVATION_HOLD_SECONDS) and which allows one live hold per client (MAX_HOLDS_PER_IP): expiry, a
 * real 429, and a 412 from A3 when the server's hold is gone while the page still counts.
 * No test waits for a hold in real time: the service runs on a TestClock the test moves forward,
 * and the page's clock is Playwright's (page.clock), fast-forwarded the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  artifactPath,
  bookBehindTheBack,
  expectAccessible,
  focusedKey,
  launchBrowser,
  partnerAppointments,
  setupWidgetResource,
  skipBrowserTests,
  slotAt,
  startService,
  type E2EService,
  type WidgetResource,
} from '../helpers/e2e.js';
import { TestClock } from '../helpers/app.js';

// long enough that the jobs' hold sweeper (real time) never removes a hold within a run
const HOLD_SECONDS = 600;
let svc: E2EService;
// only ever moved forward: a hold of an earlier test must not come back to life
const serverClock = new TestClock(new Date());
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  svc = await startService({ reservationHoldSeconds: HOLD_SECONDS, maxHoldsPerIp: 1 }, serverClock);
  browser = await launchBrowser();
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await svc?.close();
});

async function open(
  r: WidgetResource,
  before?: (page: Page) => Promise<void>,
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (before) await before(page);
  await page.goto(`${svc.baseUrl}/widget?ref=${encodeURIComponent(r.resource.reference)}&lang=en`);
  await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
  return { page, errors };
}

async function fillForm(page: Page, email: string): Promise<void> {
  await page.getByLabel('First name').fill('Hanna');
  await page.getByLabel('Last name').fill('Hold');
  await page.getByLabel('Email').fill(email);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** the server's holds taken so far are over */
const serverHoldsExpire = () => serverClock.advance(HOLD_SECONDS * 1000 + 1000);

describe.skipIf(skipBrowserTests)('widget and the reservation hold', () => {
  it('says "too many attempts" on a real 429 and works again once the first hold is gone', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [1] });
    const { page, errors } = await open(r);
    await slotAt(page, '09:00').click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();

    await page.getByRole('button', { name: 'Change time' }).click();
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    const second = page.waitForResponse((res) => res.url().includes('reserve_appointment'));
    await slotAt(page, '09:30').click();
    expect((await second).status()).toBe(429); // this client already holds 09:00
    await expect.poll(() => page.locator('.bw-alert').textContent()).toContain('Too many attempts');
    await page.screenshot({ path: artifactPath('widget-429.png'), fullPage: true });

    serverHoldsExpire();
    await slotAt(page, '09:30').click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    const who = `rate.${Date.now()}@consumer.example`;
    await fillForm(page, who);
    await page.getByRole('button', { name: 'Book appointment' }).click();
    await page.getByRole('heading', { name: 'Your appointment is booked' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('hold expires: says so, keeps the data, and books after reserving again', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [1] });
    const { page, errors } = await open(r, (p) => p.clock.install());
    await slotAt(page, '10:00').click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    // the page counts down from the service's hold (a busy machine may have let a few seconds pass)
    expect(await page.locator('.bw-hold-time').textContent()).toMatch(/^(10:00|9:[0-5]\d)$/);
    const who = `late.${Date.now()}@consumer.example`;
    await fillForm(page, who);

    const expired = page.locator('.bw-expired');
    expect(await expired.count()).toBe(0);
    serverHoldsExpire();
    await page.clock.fastForward(HOLD_SECONDS * 1000 + 1000);
    await expired.waitFor({ timeout: 20_000 });
    expect(await expired.getAttribute('role')).toBe('alert');
    expect(await expired.textContent()).toContain('Your reservation has expired');
    expect(await focusedKey(page)).toBe('reserve-again');
    const submit = page.getByRole('button', { name: 'Book appointment' });
    expect(await submit.getAttribute('aria-disabled')).toBe('true');
    await expectAccessible(page, 'hold expired');
    await page.screenshot({ path: artifactPath('widget-hold-expired.png'), fullPage: true });

    // submitting now sends nothing
    let booked = 0;
    page.on('request', (req) => req.url().includes('create_appointment_with_consumer') && booked++);
    await submit.click({ force: true }); // aria-disabled: a real click, past Playwright's enabled check
    await sleep(300);
    expect(booked).toBe(0);

    await page.getByRole('button', { name: 'Reserve this time again' }).click();
    await page.locator('.bw-hold-time').waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(who); // nothing to type again
    await submit.click();
    await page.getByRole('heading', { name: 'Your appointment is booked' }).waitFor();
    const p = (await partnerAppointments(r)).flatMap((a) => a.participations).find((x) => x.email === who);
    expect(p?.state).toBe('BOOKED');
    expect(booked).toBe(1); // only the booking after reserving again: the disabled submit sent nothing
    expect(errors).toEqual([]);
  });

  it('A3 answers 412 when the hold is gone server-side and someone else took the slot: fresh list', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [1] });
    // the page's clock is ours to stop, so the widget still counts while the server's hold expires
    const { page, errors } = await open(r, (p) => p.clock.install());
    const slot = slotAt(page, '11:00');
    const start = (await slot.getAttribute('data-start'))!;
    await slot.click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    await fillForm(page, `race.${Date.now()}@consumer.example`);
    await page.clock.pauseAt(Date.now() + 500);
    serverHoldsExpire();
    expect(await page.locator('.bw-expired').count()).toBe(0); // the page still believes in its hold

    await bookBehindTheBack(svc, r, start);

    const answer = page.waitForResponse((res) => res.url().includes('create_appointment_with_consumer'));
    await page.getByRole('button', { name: 'Book appointment' }).click();
    const res = await answer;
    expect(res.status()).toBe(412);
    expect(((await res.json()) as { errors: { errorCode: string }[] }).errors[0].errorCode).toBe('201');
    await expect.poll(() => page.locator('.bw-alert').textContent()).toContain('just been taken by someone else');
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    await expect.poll(() => page.locator('.bw-slot-time').allTextContents()).not.toContain('11:00');
    expect(await page.locator('.bw-slot').count()).toBe(5);
    await page.screenshot({ path: artifactPath('widget-slot-taken.png'), fullPage: true });
    expect(errors).toEqual([]);
  });
});
