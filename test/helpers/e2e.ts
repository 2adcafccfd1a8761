import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { DateTime } from 'luxon';
import { expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildApp, type App } from '../../src/app.js';
import type { Clock } from '../../src/context.js';
import { testConfig, type Config } from '../../src/config.js';
import { startBackgroundJobs, type BackgroundJobs } from '../../src/jobs.js';
import { ensureKey } from '../../src/partners/apiKeys.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { uniqueId, type Partner } from './app.js';
import { SmtpSink, type ReceivedMail } from './smtpSink.js';
import { setupProvider, type ProviderFixture } from './fixtures.js';
import { createProduct, createResource } from './offeringsFixtures.js';
import type { AppointmentView } from '../../src/scheduling/views.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = 'test-artifacts';

/**
 * Browser tests need Debian's chromium (.ci/run installs it). Without it they are skipped with a
 * warning, like the PostgreSQL tests without TEST_DATABASE_URL; with CI set they fail instead.
 */
export const skipBrowserTests = !existsSync(CHROMIUM) && !process.env.CI;
if (skipBrowserTests) {
  console.warn(
    `\n*** ${CHROMIUM} not found: the browser (e2e) tests are SKIPPED. Install it with: ` +
      `apt-get install -y chromium ***\n`,
  );
}

/** Real headless Chromium (Debian's package; never downloaded). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return `${ARTIFACTS}/${name}`;
}

/** Waits until a mail matching `match` has arrived at the sink. */
export async function waitForMail(
  sink: SmtpSink,
  match: (m: ReceivedMail) => boolean,
  timeoutMs = 20_000,
): Promise<ReceivedMail> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = sink.mails.find(match);
    if (found) return found;
    if (Date.now() > until) {
      const got = sink.mails.map((m) => `${m.envelopeTo.join(',')}: ${m.subject}`).join(' | ') || 'none';
      throw new Error(`no matching mail within ${timeoutMs} ms; received: ${got}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------
// The real service on a real port
// ---------------------------------------------------------------------------------------------

export interface E2EService {
  baseUrl: string;
  app: App;
  config: Config;
  database: TestDatabase;
  smtp: SmtpSink;
  /** a new partner (crmId + API key) that talks to the service over HTTP */
  newPartner(): Promise<Partner>;
  close(): Promise<void>;
}

/** A fetch response in the shape of app.inject's, so the shared fixtures work over real HTTP. */
export async function asInjectResponse(res: Response): Promise<LightMyRequestResponse> {
  const body = await res.text();
  return {
    statusCode: res.status,
    body,
    payload: body,
    headers: Object.fromEntries(res.headers.entries()),
    json: () => JSON.parse(body),
  } as unknown as LightMyRequestResponse;
}

/** The partner `crmId` with its API key, talking to the service at `baseUrl` over HTTP. */
export function partnerOverHttp(baseUrl: string, crmId: string, key: string): Partner {
  return {
    crmId,
    key,
    call: async (method, path, body, query) => {
      const url = new URL(`/crms/${crmId}${path}`, baseUrl);
      for (const [k, v] of Object.entries(query ?? {})) {
        for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, one);
      }
      const res = await fetch(url, {
        method,
        headers: { 'x-service-client-id': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return asInjectResponse(res);
    },
  };
}

/**
 * `clock`: the service's clock (default the system's); a TestClock lets a test move the server's time without waiting.
 */
export async function startService(overrides: Partial<Config> = {}, clock?: Clock): Promise<E2EService> {
  const smtp = await SmtpSink.start();
  const database = await createTestDatabase();
  const config = testConfig({
    smtpUrl: smtp.url,
    mailPollMs: 100,
    bookingRateLimitPerMinute: 10_000,
    maxHoldsPerIp: 1_000,
    ...overrides,
  });
  const app = await buildApp({
    config,
    db: database.db,
    listingDb: database.listingDb,
    logger: false,
    ...(clock ? { clock } : {}),
  });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  // links in mails point at the real port
  config.publicBaseUrl = baseUrl;
  config.port = Number(new URL(baseUrl).port);
  const jobs: BackgroundJobs = startBackgroundJobs({ config, db: database.db, log: app.log });
  return {
    baseUrl,
    app,
    config,
    database,
    smtp,
    async newPartner() {
      const crmId = uniqueId('crm');
      const key = randomBytes(16).toString('hex');
      await ensureKey(database.db, crmId, key);
      return partnerOverHttp(baseUrl, crmId, key);
    },
    async close() {
      await jobs.stop();
      await app.close();
      await database.drop();
      await smtp.close();
    },
  };
}

/** A tiny web server on another port (another origin) that serves `html` at every path. */
export async function startHostPage(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    // "localhost" and "127.0.0.1" are different origins; a different port alone is enough too
    url: `http://localhost:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---------------------------------------------------------------------------------------------
// Page helpers (the widget lives in an open shadow root; Playwright locators pierce it)
// ---------------------------------------------------------------------------------------------

/** data-key (or tag:text) of the focused element, looking into shadow roots. */
export function focusedKey(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    let a: Element | null = document.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    if (!a || a === document.body) return null;
    return a.getAttribute('data-key') ?? `${a.tagName.toLowerCase()}:${(a.textContent ?? '').trim().slice(0, 60)}`;
  });
}

/** The time button whose visible time is `time` (HH:mm); its hidden rest ("to 10:30") is not matched. */
export const slotAt = (page: Page, time: string) =>
  page.locator('.bw-slot').filter({ has: page.locator('.bw-slot-time', { hasText: time }) });

/** Presses Tab until the focused element's key matches, failing after `max` presses. */
export async function tabTo(page: Page, match: RegExp | string, max = 60): Promise<string> {
  const seen: (string | null)[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const key = await focusedKey(page);
    seen.push(key);
    if (key && (typeof match === 'string' ? key === match : match.test(key))) return key;
  }
  throw new Error(`Tab never reached ${String(match)}; focus went through: ${seen.join(' > ')}`);
}

// ---------------------------------------------------------------------------------------------
// Accessibility: axe-core in the page
// ---------------------------------------------------------------------------------------------

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core over the whole page (open shadow roots included): every rule axe runs by default
 * plus `label-content-name-mismatch` (WCAG 2.5.3, experimental in axe). The script goes in through
 * the DevTools protocol, so the page's own Content-Security-Policy stays as it is.
 * Returns the serious and critical violations (and moderate ones with `moderate`); the others are logged.
 */
export async function axeViolations(page: Page, label: string, moderate = false): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const all: AxeFinding[] = await page.evaluate(async () => {
    type AxeResult = {
      violations: {
        id: string;
        impact: string | null;
        help: string;
        nodes: { target: unknown[]; failureSummary?: string }[];
      }[];
    };
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResult> } }).axe;
    const result = await axe.run(document, {
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => `${JSON.stringify(n.target)}: ${n.failureSummary ?? ''}`),
    }));
  });
  const counted = new Set(['serious', 'critical', ...(moderate ? ['moderate'] : [])]);
  const minor = all.filter((v) => !counted.has(v.impact ?? ''));
  if (minor.length) console.log(`axe (${label}), not counted: ${minor.map((v) => `${v.id} (${v.impact})`).join(', ')}`);
  return all.filter((v) => counted.has(v.impact ?? ''));
}

/**
 * Fails with axe's findings when the page has a serious or critical
 * (with `moderate`, also a moderate) accessibility violation.
 */
export async function expectAccessible(page: Page, label: string, moderate = false): Promise<void> {
  const serious = await axeViolations(page, label, moderate);
  expect(serious, `${label}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// A bookable resource, set up by a partner over HTTP (C1, C3, C5, B1, B3, D1)
// ---------------------------------------------------------------------------------------------

export interface WidgetResource {
  partner: Partner;
  provider: ProviderFixture;
  products: { uuid: string; reference: string; name: string }[];
  resource: { uuid: string; reference: string; publicName: string };
  /** the provider's calendar days (Europe/Berlin) that got a timeslot, in order */
  days: string[];
  /** path prefix /provider/{providerRef} */
  base: string;
}

/** yyyy-MM-dd of today + `offset` days in the provider's zone. */
export function dayFromNow(offset: number, zone = 'Europe/Berlin'): string {
  return DateTime.now().setZone(zone).plus({ days: offset }).toISODate()!;
}

export async function setupWidgetResource(
  svc: E2EService,
  options: {
    products?: object[];
    resource?: object;
    /** day offsets from today that get a timeslot 09:00-12:00 (default 1 and 2); [] for none */
    dayOffsets?: number[];
    raster?: number;
    capacity?: number;
  } = {},
): Promise<WidgetResource> {
  const partner = await svc.newPartner();
  const provider = await setupProvider(partner);
  const products = [];
  for (const over of options.products ?? [{ name: 'Besichtigung' }])
    products.push(await createProduct(partner, provider.providerRef, over));
  const resource = await createResource(partner, provider.providerRef, {
    publicName: 'Wohnung Lindenstraße 12',
    description: 'Helle 3-Zimmer-Altbauwohnung, 2. OG',
    products: products.map((p) => p.reference),
    ...options.resource,
  });
  const base = `/provider/${encodeURIComponent(provider.providerRef)}`;
  const days = (options.dayOffsets ?? [1, 2]).map((o) => dayFromNow(o));
  if (days.length) await addTimeslots({ partner, base, resource }, days, options);
  return { partner, provider, products, resource, days, base };
}

/** D1: a BOOKABLE timeslot 09:00-12:00 on each day. */
export async function addTimeslots(
  r: Pick<WidgetResource, 'partner' | 'base' | 'resource'>,
  days: string[],
  options: { raster?: number; capacity?: number } = {},
): Promise<void> {
  const res = await r.partner.call('POST', `${r.base}/timeslots`, {
    timeslots: days.map((day) => ({
      resourceReference: r.resource.reference,
      start: `${day}T09:00`,
      end: `${day}T12:00`,
      raster: options.raster ?? 30,
      defaultCapacity: options.capacity ?? 1,
      defaultAcceptBookings: true,
      state: 'BOOKABLE',
    })),
  });
  expect(res.statusCode, res.body).toBe(201);
}

/** D5: the provider's appointments as the partner sees them. */
export async function partnerAppointments(r: WidgetResource): Promise<AppointmentView[]> {
  const res = await r.partner.call('GET', `${r.base}/appointments`, undefined, { resourceRef: r.resource.reference });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** Another consumer books a slot through the public API (A1, A2, A3), as a second browser would. */
export async function bookBehindTheBack(svc: E2EService, r: WidgetResource, start: string): Promise<void> {
  const ref = encodeURIComponent(r.resource.reference);
  const listed = await fetch(`${svc.baseUrl}/resources/${ref}/upcoming_bookables`);
  expect(listed.status).toBe(200);
  const body = (await listed.json()) as Record<string, unknown>;
  const all = Object.entries(body).flatMap(([k, v]) =>
    k === 'public_visible'
      ? []
      : (v as { start: string; end: string; kind: string; timeslot_uuid: string; appointment_uuid?: string }[]),
  );
  const b = all.find((x) => x.start === start);
  if (!b) throw new Error(`no bookable at ${start}`);
  const productUuid = r.products[0].uuid;
  const post = (path: string, json: object) =>
    fetch(`${svc.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
  const held = await post(`/rest/1/resources/${ref}/reserve_appointment`, {
    ...(b.kind === 'models.LotAppointment'
      ? { appointment_uuid: b.appointment_uuid }
      : { timeslot_uuid: b.timeslot_uuid }),
    product_uuid: productUuid,
    from: new Date(b.start).toISOString(),
    to: new Date(b.end).toISOString(),
  });
  expect(held.status, await held.clone().text()).toBe(201);
  const placeholder = ((await held.json()) as { participation: { customer_uuid: string } }).participation.customer_uuid;
  const booked = await post(`/resources/${ref}/create_appointment_with_consumer`, {
    start: b.start,
    end: b.end,
    timeslot_uuid: b.appointment_uuid ?? b.timeslot_uuid,
    product_uuid: productUuid,
    placeholder_id: placeholder,
    email: `${uniqueId('other')}@consumer.example`,
    firstname: 'Otto',
    lastname: 'Other',
  });
  expect(booked.status, await booked.clone().text()).toBe(201);
}
