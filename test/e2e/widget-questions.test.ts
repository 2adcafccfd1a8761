/**
 * The widget asks the product's booking questions (DESIGN 7.7) in real headless Chromium against
 * the real service: a control per type in the consumer's language, required marks, errors tied
 * to their fields, keyboard use, axe, and the answers arriving at the partner (D5) and in the
 * provider's mail. Screenshots of the form with questions go to test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  artifactPath,
  expectAccessible,
  focusedKey,
  launchBrowser,
  partnerAppointments,
  setupWidgetResource,
  skipBrowserTests,
  slotAt,
  startService,
  waitForMail,
  type E2EService,
  type WidgetResource,
} from '../helpers/e2e.js';
import { QUESTIONS } from '../helpers/questionsFixtures.js';

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

async function newPage(width: number, height: number, locale: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width, height },
    locale,
    hasTouch: width < 500,
    isMobile: width < 500,
  });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return { page, errors };
}

const widgetUrl = (r: WidgetResource, lang: string) =>
  `${svc.baseUrl}/widget?ref=${encodeURIComponent(r.resource.reference)}&lang=${lang}`;

async function toDetails(page: Page, r: WidgetResource, lang: string, heading: string) {
  await page.goto(widgetUrl(r, lang));
  await slotAt(page, '09:00').first().click();
  await page.getByRole('heading', { name: heading }).waitFor();
}

describe.skipIf(skipBrowserTests)('booking questions in the widget', () => {
  it('asks them in German with a control per type, marks errors at their fields, books with the answers', async () => {
    const r = await setupWidgetResource(svc, { products: [{ name: 'Besichtigung', questions: QUESTIONS }] });
    const { page, errors } = await newPage(1280, 1000, 'de-DE');
    await toDetails(page, r, 'de', 'Ihre Angaben');

    // a control per type, labelled in German, required ones marked
    const persons = page.getByLabel('Wie viele Personen?');
    expect(await persons.evaluate((el) => el.tagName)).toBe('SELECT');
    expect(await persons.getAttribute('aria-required')).toBe('true');
    expect(await page.locator('select[name="q_persons"] option').allTextContents()).toEqual([
      'Bitte wählen',
      'Eine Person',
      'Zwei Personen',
    ]);
    expect(await page.getByRole('checkbox', { name: 'Ich stimme zu' }).count()).toBe(1);
    expect(await page.getByLabel('Anmerkungen').evaluate((el) => el.tagName)).toBe('TEXTAREA');
    expect(await page.getByLabel('Dienstliche E-Mail').getAttribute('type')).toBe('email');
    expect(await page.getByLabel('Telefon der Versicherung').getAttribute('type')).toBe('tel');
    expect(await page.getByLabel('Kennzeichen').getAttribute('maxlength')).toBe('12');
    expect(await page.locator('.bw-field--q .bw-req').count()).toBe(2);

    await page.getByLabel('Vorname').fill('Anna');
    await page.getByLabel('Nachname').fill('Muster');
    await page.locator('input[name="email"]').fill('anna.q@example.org');
    await page.getByLabel('Dienstliche E-Mail').fill('anna at work');
    await page.getByRole('button', { name: 'Termin buchen' }).click();

    // the missing and the wrong answers are marked at their fields; focus on the first
    await expect.poll(() => persons.getAttribute('aria-invalid')).toBe('true');
    expect(await focusedKey(page)).toBe('field-q_persons');
    const describedBy = (await persons.getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toContain('Bitte wählen Sie eine Möglichkeit.');
    const consent = page.getByRole('checkbox', { name: 'Ich stimme zu' });
    expect(await consent.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`[id="${await consent.getAttribute('aria-describedby')}"]`).textContent()).toContain(
      'Häkchen',
    );
    expect(await page.getByLabel('Dienstliche E-Mail').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Kennzeichen').getAttribute('aria-invalid')).toBeNull();
    await expectAccessible(page, 'form with questions and errors (de, 1280 px)');
    await page.screenshot({ path: artifactPath('widget-questions-form.png'), fullPage: true });

    // keyboard only: choose with the arrow keys, tick with space
    await persons.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => persons.inputValue()).toBe('2');
    await consent.focus();
    await page.keyboard.press('Space');
    expect(await consent.isChecked()).toBe(true);
    await page.getByLabel('Kennzeichen').fill('B-XY 123');
    await page.getByLabel('Anmerkungen').fill('Zweiter Stock');
    await page.getByLabel('Dienstliche E-Mail').fill('anna@work.example');
    await page.getByRole('button', { name: 'Termin buchen' }).click();

    await page.getByRole('heading', { name: 'Ihr Termin ist gebucht' }).waitFor();
    const done = (await page.locator('.bw-answers').textContent())!;
    for (const text of ['Ihre Angaben', 'Wie viele Personen?', 'Zwei Personen', 'Ich stimme zu', 'Ja', 'B-XY 123'])
      expect(done).toContain(text);
    await expectAccessible(page, 'done with answers (de, 1280 px)');

    const [booked] = (await partnerAppointments(r)).filter((a) => a.participations.length > 0);
    expect(booked.participations[0].answers).toEqual([
      { key: 'persons', label: QUESTIONS[0].label, value: '2' },
      { key: 'plate', label: QUESTIONS[1].label, value: 'B-XY 123' },
      { key: 'notes', label: QUESTIONS[2].label, value: 'Zweiter Stock' },
      { key: 'consent', label: QUESTIONS[3].label, value: true },
      { key: 'work_email', label: QUESTIONS[4].label, value: 'anna@work.example' },
    ]);
    const mail = await waitForMail(
      svc.smtp,
      (m) => m.subject.startsWith('Neue Buchung') && m.text!.includes('anna.q@example.org'),
    );
    expect(mail.text).toContain('- Kennzeichen: B-XY 123');
    expect(errors).toEqual([]);
  });

  it('asks them in English on a phone, within the width, and accessible', async () => {
    const r = await setupWidgetResource(svc, { products: [{ name: 'Viewing', questions: QUESTIONS }] });
    const { page, errors } = await newPage(360, 800, 'en-GB');
    await toDetails(page, r, 'en', 'Your details');
    expect(await page.locator('.bw-field--q > label, .bw-check-row label').allTextContents()).toEqual([
      'How many people? *',
      'Licence plate (optional)',
      'Notes (optional)',
      'I agree *',
      'Work email (optional)',
      'Insurer phone (optional)',
    ]);
    // nothing wider than the screen; the checkbox is big enough to tap with its label
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const box = (await page.locator('.bw-check-row').boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(24);
    await page.getByRole('button', { name: 'Book appointment' }).click();
    await expect.poll(() => page.getByLabel('How many people?').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'form with questions (en, 360 px)');
    await page.screenshot({ path: artifactPath('widget-questions-phone.png'), fullPage: true });
    expect(errors).toEqual([]);
  });
});
