/**
 * The booking widget in real headless Chromium against the real service on a real port, with a
 * real SMTP sink (issue 7). Partner data is set up over HTTP; results are checked through the
 * partner API (D5) and the mails that arrive.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DateTime } from 'luxon';
import {
  addTimeslots,
  artifactPath,
  bookBehindTheBack,
  axeViolations,
  dayFromNow,
  expectAccessible,
  focusedKey,
  launchBrowser,
  partnerAppointments,
  setupWidgetResource,
  startHostPage,
  skipBrowserTests,
  slotAt,
  startService,
  tabTo,
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

/** A fresh browser context (own cache, storage) and page; console errors fail the test. */
async function newPage(width = 1280, height = 900): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height }, locale: 'de-DE' });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return { page, errors };
}

function widgetUrl(r: WidgetResource, query: Record<string, string> = {}): string {
  const u = new URL('/widget', svc.baseUrl);
  u.searchParams.set('ref', r.resource.reference);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  return u.toString();
}

const longDate = (day: string, locale: string) =>
  new Intl.DateTimeFormat(locale, {
    timeZone: 'UTC',
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  }).format(new Date(`${day}T12:00:00Z`));

/** What a day button shows, e.g. "Mo. 20 Juli" / "Mon 20 Jul" (weekday and month names from Intl). */
const dayText = (day: string, locale: string) => {
  const date = new Date(`${day}T12:00:00Z`);
  const part = (o: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...o }).format(date);
  return `${part({ weekday: 'short' })} ${date.getUTCDate()} ${part({ month: 'short' })}`;
};

/** The accessible name Chromium computes for an element (what screen readers and voice control use). */
const accessibleName = async (page: Page, selector: string) => {
  const snapshot = await page.locator(selector).ariaSnapshot();
  return /"([^"]*)"/.exec(snapshot)?.[1] ?? snapshot;
};

/** Raw bytes of a GET with Accept-Encoding: gzip (fetch would decompress them). */
function getRaw(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers: { 'accept-encoding': 'gzip', ...headers } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
    })
      .on('error', reject)
      .end();
  });
}

describe.skipIf(skipBrowserTests)('serving', () => {
  it('serves the page, script and styles to any origin, gzipped, 20 KB at most together', async () => {
    const urls = {
      page: `${svc.baseUrl}/widget?ref=${encodeURIComponent('x@crm')}&lang=de`,
      script: `${svc.baseUrl}/widget.js`,
      styles: `${svc.baseUrl}/widget/widget.css`,
      frame: `${svc.baseUrl}/widget/frame.js`,
    };
    const sizes: Record<string, number> = {};
    for (const [name, url] of Object.entries(urls)) {
      const res = await getRaw(url, { origin: 'https://partner.example' });
      expect(res.status, name).toBe(200);
      expect(res.headers['access-control-allow-origin'], name).toBe('*');
      expect(res.headers['content-encoding'], name).toBe('gzip');
      sizes[name] = res.bytes;
    }
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    console.log(
      `widget assets gzipped: ${JSON.stringify(sizes)}, total ${total} bytes (${(total / 1024).toFixed(1)} KB)`,
    );
    expect(total).toBeLessThanOrEqual(20 * 1024);

    const script = await fetch(urls.script);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    // the service writes its hold length into the bundle, so the countdown matches the server
    const source = await script.text();
    expect(source).not.toContain('__HOLD_SECONDS__');
    expect(source).toContain(`"${svc.config.reservationHoldSeconds}"`);
    const etag = script.headers.get('etag')!;
    expect((await fetch(urls.script, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const page = await fetch(urls.page);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(page.headers.get('x-frame-options')).toBeNull();
    const missing = await fetch(`${svc.baseUrl}/widget`);
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain('ref');
    const hostile = await fetch(`${svc.baseUrl}/widget?ref=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(hostile.status).toBe(400);
    expect(await hostile.text()).not.toContain('<script>alert');
  });
});

describe.skipIf(skipBrowserTests)('booking in the browser', () => {
  it('books (German, desktop): days, times, countdown, inline 400, confirmation, partner API and mails', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [1, 2, 3, 4, 5, 6, 7, 8, 9] });
    const { page, errors } = await newPage(1280, 640);
    const listing = page.waitForResponse((res) => res.url().includes('/upcoming_bookables'));
    await page.goto(widgetUrl(r, { lang: 'de' }));
    // the listing travels compressed, as the browser accepts it, and carries its ETag
    const listingHeaders = await (await listing).allHeaders();
    expect(['br', 'gzip']).toContain(listingHeaders['content-encoding']);
    expect(listingHeaders.etag).toMatch(/^W\/"/);

    await expect.poll(() => page.getByRole('heading', { name: 'Datum und Uhrzeit wählen' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Wohnung Lindenstraße 12');
    // weekday and month names come from Intl, in German
    const day1 = page.locator(`[data-day="${r.days[0]}"]`);
    // its name is what it shows, then the number of times (WCAG 2.5.3 label in name)
    expect(await accessibleName(page, `[data-day="${r.days[0]}"]`)).toMatch(
      new RegExp(`^${dayText(r.days[0], 'de-DE')} ?, 6 freie Zeiten$`),
    );
    expect(await day1.getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('.bw-slot').count()).toBe(6); // 09:00 .. 11:30
    expect(await accessibleName(page, '.bw-slot >> nth=0')).toBe('09:00 bis 09:30 Uhr');
    await expect.poll(() => page.locator('.bw-times-heading').textContent()).toContain(longDate(r.days[0], 'de-DE'));
    await expectAccessible(page, 'slots (de, 1280 px)');
    await page.screenshot({ path: artifactPath('widget-desktop-slots.png'), fullPage: true });

    // seven days a page; the later days on the next one
    expect(await page.locator('.bw-day').count()).toBe(7);
    await page.getByRole('button', { name: 'Spätere Tage' }).click();
    await expect.poll(() => page.locator('.bw-day').count()).toBe(2);
    expect(await page.locator(`[data-day="${r.days[8]}"]`).count()).toBe(1);
    await page.getByRole('button', { name: 'Frühere Tage' }).click();
    await expect.poll(() => page.locator('.bw-day').count()).toBe(7);

    // the second day, then its 10:00 slot
    await page.locator(`[data-day="${r.days[1]}"]`).click();
    expect(await page.locator(`[data-day="${r.days[1]}"]`).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.locator('.bw-times-heading').textContent()).toContain(longDate(r.days[1], 'de-DE'));
    await slotAt(page, '10:00').click();

    const details = page.getByRole('heading', { name: 'Ihre Angaben' });
    await details.waitFor();
    expect(await focusedKey(page)).toBe('h2:Ihre Angaben'); // focus moved to the new step's heading
    const timer = page.locator('.bw-hold-time');
    expect(await timer.textContent()).toMatch(/^(3:00|2:5\d)$/);
    const first = await timer.textContent();
    await expect.poll(() => timer.textContent(), { timeout: 20_000 }).not.toBe(first); // it counts down live
    expect(await page.locator('.bw-chosen-slot').textContent()).toContain('10:00 bis 10:30 Uhr');

    // client-side checks first: nothing filled in
    await page.getByRole('button', { name: 'Termin buchen' }).click();
    expect(await page.getByLabel('Vorname').getAttribute('aria-invalid')).toBe('true');
    expect(await focusedKey(page)).toBe('field-firstname');

    await page.getByLabel('Vorname').fill('Anna');
    await page.getByLabel('Nachname').fill('Muster');
    // passes the widget's own check but not the server's format check: a real 400 from A3
    await page.getByLabel('E-Mail').fill('anna@exa_mple.com');
    await page.getByLabel(/Mobilnummer/).fill('+49 151 23456789');
    await page.getByLabel(/Nachricht/).fill('Ich komme mit meinem Partner.');
    expect(await page.locator('.bw-count').textContent()).toBe(
      `Noch ${1024 - 'Ich komme mit meinem Partner.'.length} Zeichen`,
    );
    const seen400 = page.waitForResponse(
      (res) => res.url().includes('create_appointment_with_consumer') && res.status() === 400,
    );
    await page.getByRole('button', { name: 'Termin buchen' }).click();
    await seen400;
    const email = page.getByLabel('E-Mail');
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[id$="-email-err"]').textContent()).toContain('gültige E-Mail-Adresse');
    expect(await email.getAttribute('aria-describedby')).toMatch(/-email-err/);
    expect(await page.getByLabel('Vorname').getAttribute('aria-invalid')).toBeNull();
    expect(await focusedKey(page)).toBe('field-email');
    expect(await page.getByRole('alert').first().textContent()).toContain('markierten Felder');
    await expectAccessible(page, 'form with errors (de, 1280 px)');
    await page.screenshot({ path: artifactPath('widget-desktop-form.png'), fullPage: true });

    const consumerEmail = 'anna.muster@example.org';
    await email.fill(consumerEmail);
    await page.getByRole('button', { name: 'Termin buchen' }).click();
    const done = page.getByRole('heading', { name: 'Ihr Termin ist gebucht' });
    await done.waitFor();
    expect(await focusedKey(page)).toBe('h2:Ihr Termin ist gebucht');
    expect(await page.locator('.bw-done').textContent()).toContain(consumerEmail);
    const cancelHref = (await page.getByRole('link', { name: 'Diesen Termin stornieren' }).getAttribute('href'))!;
    expect(cancelHref).toMatch(new RegExp(`^${svc.baseUrl}/cancel/`));
    await expectAccessible(page, 'done (de, 1280 px)');
    await page.screenshot({ path: artifactPath('widget-desktop-done.png'), fullPage: true });

    // the cancel link's page, before and after cancelling, is accessible too
    const { page: cancelPage } = await newPage(1280, 640);
    await cancelPage.goto(cancelHref);
    await cancelPage.getByRole('button').first().waitFor();
    await expectAccessible(cancelPage, 'cancel page');
    await cancelPage.screenshot({ path: artifactPath('cancel-page.png'), fullPage: true });

    // the partner sees the booking (D5)
    const appointments = await partnerAppointments(r);
    const booked = appointments.find((a) => a.participations.some((p) => p.email === consumerEmail));
    expect(booked, JSON.stringify(appointments)).toBeDefined();
    expect(Date.parse(booked!.start)).toBe(
      DateTime.fromISO(`${r.days[1]}T10:00`, { zone: 'Europe/Berlin' }).toMillis(),
    );
    expect(booked!.productReference).toBe(r.products[0].reference);
    expect(booked!.participations).toHaveLength(1);
    expect(booked!.participations[0]).toMatchObject({
      email: consumerEmail,
      state: 'BOOKED',
      mobile: '+49 151 23456789',
    });

    // and mails arrive: confirmation to the consumer (German, with the cancel link), notice to the provider
    const mail = await waitForMail(svc.smtp, (m) => m.envelopeTo.includes(consumerEmail));
    expect(mail.subject).toContain('Buchungsbestätigung');
    expect(`${mail.text ?? ''}${mail.html ?? ''}`).toContain(`${svc.baseUrl}/cancel/`);
    const providerMail = await waitForMail(
      svc.smtp,
      (m) => m.subject.includes('Neue Buchung') && m.subject.includes('Anna Muster'),
    );
    expect(providerMail.envelopeTo).not.toContain(consumerEmail);

    // last, the consumer cancels through the link: the answer page is accessible as well
    await Promise.all([
      cancelPage.waitForNavigation(),
      cancelPage.locator('form[method="post"] button[type="submit"]').click(),
    ]);
    expect(await cancelPage.locator('body').textContent()).toMatch(/storniert/i);
    await expectAccessible(cancelPage, 'cancel page, cancelled');
    expect(errors).toEqual([]);
  });

  it('sends a request on a REQUESTED channel (English, 360 px phone)', async () => {
    const r = await setupWidgetResource(svc, {
      products: [{ name: 'Viewing' }],
      dayOffsets: [1, 2, 3, 4, 5, 6, 7],
      resource: {
        publicName: 'Flat 3, Linden Street 12',
        description: 'Bright 3-room period flat, 2nd floor',
        channels: { RESOURCE_PUBLIC: { bookingProcess: 'REQUESTED' } },
      },
    });
    const { page, errors } = await newPage(360, 740);
    await page.goto(widgetUrl(r, { lang: 'en', channelKey: 'RESOURCE_PUBLIC' }));
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    expect(await accessibleName(page, `[data-day="${r.days[0]}"]`)).toMatch(
      new RegExp(`^${dayText(r.days[0], 'en-GB')} ?, 6 free times$`),
    );
    await expectAccessible(page, 'slots (en, 360 px)');
    // nothing sticks out sideways at 360 px
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: artifactPath('widget-phone-slots.png'), fullPage: true });

    await slotAt(page, '09:30').click();
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    const consumerEmail = 'erika@example.org';
    await page.getByLabel('First name').fill('Erika');
    await page.getByLabel('Last name').fill('Example');
    await page.getByLabel('Email').fill(consumerEmail);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: artifactPath('widget-phone-form.png'), fullPage: true });
    await page.getByRole('button', { name: 'Send booking request' }).click();

    await page.getByRole('heading', { name: 'Request sent — the provider will confirm' }).waitFor();
    expect(await page.locator('.bw-done').textContent()).toContain('not confirmed yet');
    await expectAccessible(page, 'request sent (en, 360 px)');
    await page.screenshot({ path: artifactPath('widget-phone-done.png'), fullPage: true });

    const appointments = await partnerAppointments(r);
    const participation = appointments.flatMap((a) => a.participations).find((p) => p.email === consumerEmail);
    expect(participation?.state).toBe('REQUESTED');
    const mail = await waitForMail(svc.smtp, (m) => m.envelopeTo.includes(consumerEmail));
    expect(mail.subject).toContain('Request received');
    // the provider is asked to confirm (in the provider's own language)
    const ask = await waitForMail(svc.smtp, (m) => m.subject.includes('(Erika Example)'));
    expect(ask.envelopeTo).not.toContain(consumerEmail);
    expect(errors).toEqual([]);
  });

  it('slot taken behind its back: says so and shows a fresh list', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [1] });
    const { page, errors } = await newPage();
    await page.goto(widgetUrl(r, { lang: 'de' }));
    await page.getByRole('heading', { name: 'Datum und Uhrzeit wählen' }).waitFor();
    const slot = slotAt(page, '09:00');
    const start = (await slot.getAttribute('data-start'))!;

    await bookBehindTheBack(svc, r, start);

    const answer = page.waitForResponse((res) => res.url().includes('reserve_appointment'));
    await slot.click();
    expect((await answer).status()).toBe(412);
    const alert = page.locator('.bw-alert');
    await expect.poll(() => alert.textContent()).toContain('gerade von jemand anderem gebucht');
    await page.getByRole('heading', { name: 'Datum und Uhrzeit wählen' }).waitFor();
    expect(await focusedKey(page)).toBe('h2:Datum und Uhrzeit wählen');
    // the fresh list no longer offers 09:00
    await expect
      .poll(() => page.locator('.bw-slot-time').allTextContents())
      .toEqual(['09:30', '10:00', '10:30', '11:00', '11:30']);

    // and the consumer goes on with another time
    await slotAt(page, '09:30').click();
    await page.getByRole('heading', { name: 'Ihre Angaben' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('books with the keyboard only, focus always visible and moved to each new step', async () => {
    const r = await setupWidgetResource(svc);
    const { page, errors } = await newPage();
    await page.goto(widgetUrl(r, { lang: 'en' }));
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    // nothing is focused on load: the widget never steals focus from the page
    expect(await focusedKey(page)).toBeNull();

    const outline = () =>
      page.evaluate(() => {
        let a: Element | null = document.activeElement;
        while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
        const s = getComputedStyle(a!);
        return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
      });

    await tabTo(page, `day-${r.days[1]}`);
    expect(await outline()).toMatchObject({ style: 'solid', width: 3 });
    await page.keyboard.press('Enter');
    expect(await page.locator(`[data-day="${r.days[1]}"]`).getAttribute('aria-pressed')).toBe('true');
    expect(await focusedKey(page)).toBe(`day-${r.days[1]}`); // focus stays on the day
    await expect.poll(() => page.locator('[role="status"]').textContent()).toContain('6 free times');

    const slotKey = await tabTo(page, /^slot-.*T11:00/);
    expect(await outline()).toMatchObject({ style: 'solid', width: 3 });
    expect(slotKey).toContain(r.days[1]);
    await page.keyboard.press('Space');
    await page.getByRole('heading', { name: 'Your details' }).waitFor();
    expect(await focusedKey(page)).toBe('h2:Your details');

    const who = `kim.${Date.now()}@consumer.example`;
    await tabTo(page, 'field-firstname');
    await page.keyboard.type('Kim');
    await page.keyboard.press('Tab');
    expect(await focusedKey(page)).toBe('field-lastname');
    await page.keyboard.type('Keyboard');
    await page.keyboard.press('Tab');
    expect(await focusedKey(page)).toBe('field-email');
    expect(await outline()).toMatchObject({ style: 'solid', width: 3 });
    await page.keyboard.type(who);
    await page.keyboard.press('Tab');
    expect(await focusedKey(page)).toBe('field-mobile');
    await page.keyboard.press('Tab');
    expect(await focusedKey(page)).toBe('field-message');
    await page.keyboard.type('No mouse needed.');
    await page.keyboard.press('Tab');
    expect(await focusedKey(page)).toBe('submit');
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'Your appointment is booked' }).waitFor();
    expect(await focusedKey(page)).toBe('h2:Your appointment is booked');
    const p = (await partnerAppointments(r)).flatMap((a) => a.participations).find((x) => x.email === who);
    expect(p?.state).toBe('BOOKED');
    expect(errors).toEqual([]);
  });

  it('runs embedded by a script tag on a page of another origin, themed, with a product choice', async () => {
    const r = await setupWidgetResource(svc, {
      products: [
        { name: 'Viewing', description: 'Walk through the flat with the agent', minDuration: 30 },
        { name: 'Consultation', description: 'Questions about the lease', minDuration: 30 },
      ],
    });
    const host = await startHostPage(
      `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner site</title>
<style>
  :root { --bw-accent: #7a1fa2; }
  button { background: red !important; }  /* the host page's CSS must not reach into the widget */
</style></head>
<body><h1>Partner Estates</h1><p>Book a viewing:</p>
<div id="calendar"></div>
<script src="${svc.baseUrl}/widget.js" data-ref="${r.resource.reference}" data-target="#calendar" ` +
        `data-lang="en"></script>
</body></html>`,
    );
    try {
      const { page, errors } = await newPage();
      const requests: string[] = [];
      page.on('request', (req) => requests.push(req.url()));
      await page.goto(host.url);
      expect(new URL(host.url).origin).not.toBe(new URL(svc.baseUrl).origin);

      await page.getByRole('heading', { name: 'Choose a service' }).waitFor();
      expect(await page.locator('#calendar').evaluate((el) => !!el.shadowRoot)).toBe(true);
      expect(await page.locator('.bw-product').count()).toBe(2);
      await expectAccessible(page, 'products (script tag)');
      await page.locator('.bw-product', { hasText: 'Consultation' }).click();
      await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
      expect(await page.locator('.bw-chosen').textContent()).toContain('Consultation');

      // themed by the host's custom property; the host's own button rule does not leak in
      const selected = page.locator('.bw-day[aria-pressed="true"]');
      expect(await selected.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(122, 31, 162)');
      expect(
        await page
          .locator('.bw-slot')
          .first()
          .evaluate((el) => getComputedStyle(el).backgroundColor),
      ).not.toBe('rgb(255, 0, 0)');

      await slotAt(page, '10:30').first().click();
      await page.getByRole('heading', { name: 'Your details' }).waitFor();
      const who = `cross.${Date.now()}@consumer.example`;
      await page.getByLabel('First name').fill('Chris');
      await page.getByLabel('Last name').fill('Origin');
      await page.getByLabel('Email').fill(who);
      await page.getByRole('button', { name: 'Book appointment' }).click();
      await page.getByRole('heading', { name: 'Your appointment is booked' }).waitFor();

      // every call went cross-origin to the service
      const api = requests.filter((u) => /resources|products|rest\/1/.test(u));
      expect(api.length).toBeGreaterThanOrEqual(5);
      for (const u of api) expect(new URL(u).origin).toBe(new URL(svc.baseUrl).origin);
      const a = (await partnerAppointments(r)).find((x) => x.participations.some((p) => p.email === who));
      expect(a?.productReference).toBe(r.products[1].reference);
      expect(errors).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it('shows a friendly empty state on 204 and finds times after "check again"', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [] });
    const { page, errors } = await newPage();
    await page.goto(widgetUrl(r, { lang: 'de' }));
    await page.getByRole('heading', { name: 'Zurzeit keine freien Termine' }).waitFor();
    // the provider's public contact is offered instead
    expect(await page.locator('.bw-contact').textContent()).toContain('@');
    await expectAccessible(page, 'no free times');

    await addTimeslots(r, [dayFromNow(3)]);
    await page.getByRole('button', { name: 'Erneut prüfen' }).click();
    await page.getByRole('heading', { name: 'Datum und Uhrzeit wählen' }).waitFor();
    expect(await page.locator('.bw-slot').count()).toBe(6);
    expect(errors).toEqual([]);
  });

  it('offers a retry after a network error', async () => {
    const r = await setupWidgetResource(svc, { dayOffsets: [2] });
    const { page } = await newPage();
    let failed = 0;
    await page.route('**/upcoming_bookables**', async (route) => {
      if (failed++ === 0) return route.abort('internetdisconnected');
      return route.continue();
    });
    await page.goto(widgetUrl(r, { lang: 'en' }));
    await page.getByRole('heading', { name: 'The booking calendar could not be loaded' }).waitFor();
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain('Connection problem');
    await expectAccessible(page, 'error step');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Choose a date and time' }).waitFor();
    expect(await page.locator('.bw-slot').count()).toBe(6);
    expect(failed).toBe(2);
  });
});

describe.skipIf(skipBrowserTests)('the accessibility check', () => {
  it('finds a serious violation in the shadow root, including a name not containing the visible text', async () => {
    const host =
      await startHostPage(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Check</title></head>
<body><main><div id="w"></div></main>
<script>
  const root = document.getElementById('w').attachShadow({ mode: 'open' });
  root.innerHTML = '<button type="button" aria-label="Monday, 20 July 2026">Mon 20 Jul</button><img src="x.png">';
</script></body></html>`);
    try {
      const { page } = await newPage();
      await page.goto(host.url);
      const found = await axeViolations(page, 'bad example');
      expect(found.map((v) => v.id).sort()).toEqual(['image-alt', 'label-content-name-mismatch']);
    } finally {
      await host.close();
    }
  });
});
