import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { enqueueMails, type OutboxMail } from '../../src/notifications/outbox.js';
import { claimDue } from '../../src/notifications/queue.js';
import { fileTransport, smtpTransport, transportFor, type MailTransport } from '../../src/notifications/transport.js';
import { MailWorker, type MailWorkerOptions, type WorkerLog } from '../../src/notifications/worker.js';
import type { Db } from '../../src/storage/db.js';
import { uniqueId } from '../helpers/app.js';
import { createTestDatabase, currentBackend, type TestDatabase } from '../helpers/db.js';
import { parseMail, SmtpSink } from '../helpers/smtpSink.js';

const MAIL_FROM = 'Booking Service <no-reply@booking.local>';

let database: TestDatabase;
let db: Db;
let sink: SmtpSink;
const workers: MailWorker[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await sink?.close();
  // every test starts with an empty outbox
  await db.query('DELETE FROM outbox');
});
afterAll(() => database.drop());

/** Log lines, to check that no address or content reaches the log. */
const logged: unknown[] = [];
const log: WorkerLog = { info: (o) => logged.push(o), warn: (o) => logged.push(o), error: (o) => logged.push(o) };

/** Fast retries for tests: 10 ms, 20 ms, 40 ms ... at most 200 ms. */
const FAST: Partial<MailWorkerOptions> = { pollMs: 20, backoffBaseMs: 5, backoffMaxMs: 200 };

function worker(transport: MailTransport, options: Partial<MailWorkerOptions> = {}, on: Db = db): MailWorker {
  const w = new MailWorker({ db: on, transport, log, mailFrom: MAIL_FROM }, { pollMs: 20, ...FAST, ...options });
  workers.push(w);
  return w;
}

function verificationMail(recipient = `${uniqueId('user')}@example.com`): OutboxMail {
  return {
    crmId: 'crm-mail',
    template: 'user-email-verification',
    recipient,
    locale: 'de',
    payload: { firstName: 'Anna', lastName: 'Muster', email: recipient, reference: 'u1@crm' },
  };
}

async function enqueue(count: number): Promise<OutboxMail[]> {
  const mails = Array.from({ length: count }, () => verificationMail());
  await db.transaction((tx) => enqueueMails(tx, mails));
  return mails;
}

async function rows() {
  return db.query<{
    id: string;
    template: string;
    recipient: string;
    status: string;
    attempts: number;
    last_error: string | null;
    sent_at: Date | null;
  }>('SELECT id, template, recipient, status, attempts, last_error, sent_at FROM outbox ORDER BY created_at, id');
}

async function until(condition: () => Promise<boolean> | boolean, timeoutMs = 25_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every outbox row arrived exactly once, under its own Message-ID. */
async function expectEachDeliveredOnce(): Promise<void> {
  const all = await rows();
  expect(all.every((r) => r.status === 'SENT' && r.sent_at !== null)).toBe(true);
  expect(sink.mails.map((m) => m.messageId).sort()).toEqual(all.map((r) => `<${r.id}@booking-service>`).sort());
}

describe('mail worker over SMTP', () => {
  it('delivers each pending row once with a Message-ID of its own and marks it SENT', async () => {
    sink = await SmtpSink.start();
    const mails = await enqueue(5);
    const claimed = await worker(smtpTransport(sink.url)).runOnce();
    expect(claimed).toBe(5);
    expect(sink.mails).toHaveLength(5);
    await expectEachDeliveredOnce();
    const first = sink.to(mails[0].recipient)[0];
    expect(first.subject).toBe('Bitte bestätigen Sie Ihre E-Mail-Adresse');
    expect(first.from).toBe(MAIL_FROM);
    expect(first.headers.get('auto-submitted')).toBe('auto-generated');
    expect(first.text).toContain(`Ihre E-Mail-Adresse ${mails[0].recipient} wurde mit einem Benutzerkonto verknüpft`);
    expect(first.html).toContain('<html lang="de">');
    expect((await rows()).every((r) => r.attempts === 1 && r.last_error === null)).toBe(true);
    expect(await worker(smtpTransport(sink.url)).runOnce()).toBe(0);
  });

  it('keeps mails while SMTP is down, retries with backoff, and delivers each once when it is back', async () => {
    sink = await SmtpSink.start({ down: true });
    await enqueue(8);
    worker(smtpTransport(sink.url)).start();
    await until(async () => (await rows()).every((r) => r.attempts >= 3));
    const waiting = await rows();
    expect(waiting.every((r) => r.status === 'PENDING' && r.sent_at === null)).toBe(true);
    expect(waiting[0].last_error).toMatch(/ECONNREFUSED|ESOCKET|connect/i);
    await sink.up();
    await until(async () => (await rows()).every((r) => r.status === 'SENT'));
    await sink.waitFor(8, 20_000, 300);
    await expectEachDeliveredOnce();
  });

  it('retries a temporary SMTP rejection (451) and then delivers once', async () => {
    sink = await SmtpSink.start();
    sink.rejecting = true;
    await enqueue(3);
    worker(smtpTransport(sink.url)).start();
    await until(async () => (await rows()).every((r) => r.attempts >= 2));
    expect((await rows())[0].last_error).toContain('451');
    expect(sink.mails).toHaveLength(0);
    sink.rejecting = false;
    await until(async () => (await rows()).every((r) => r.status === 'SENT'));
    await sink.waitFor(3, 20_000, 200);
    await expectEachDeliveredOnce();
  });

  it('marks a row FAILED after its last attempt and keeps it, and counts it', async () => {
    sink = await SmtpSink.start({ down: true });
    const failedBefore = await counterValue('booking_mail_failed_total');
    const [mail] = await enqueue(1);
    logged.length = 0;
    worker(smtpTransport(sink.url), { maxAttempts: 3 }).start();
    await until(async () => (await rows())[0].status === 'FAILED');
    const [row] = await rows();
    expect(row).toMatchObject({ status: 'FAILED', attempts: 3, recipient: mail.recipient });
    expect(row.last_error).toBeTruthy();
    expect(await counterValue('booking_mail_failed_total')).toBe(failedBefore + 1);
    // failures were logged, without the address
    expect(logged.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(logged)).not.toContain(mail.recipient);
    // a FAILED row is never picked up again
    await sink.up();
    await new Promise((r) => setTimeout(r, 150));
    expect(sink.mails).toHaveLength(0);
  });

  it('gives up at once on a row that cannot be rendered and still delivers the others', async () => {
    sink = await SmtpSink.start();
    await db.transaction((tx) =>
      enqueueMails(tx, [
        { ...verificationMail(), template: 'booking-confirmed', payload: { broken: true } },
        verificationMail(),
      ]),
    );
    await worker(smtpTransport(sink.url)).runOnce();
    const all = await rows();
    const broken = all.find((r) => r.template === 'booking-confirmed')!;
    const good = all.find((r) => r.template === 'user-email-verification')!;
    expect(broken).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(broken.last_error).toContain('not an appointment payload');
    expect(good.status).toBe('SENT');
    expect(sink.mails).toHaveLength(1);
  });

  it('sends a mail promptly after the enqueuing transaction commits, without waiting for the poll', async () => {
    sink = await SmtpSink.start();
    // the worker's queries, counted: its first look must have found nothing before the mail is enqueued
    let looks = 0;
    const watched = new Proxy(db, {
      get(target, prop) {
        if (prop === 'query')
          return async (...args: Parameters<Db['query']>) => {
            const r = await target.query(...args);
            looks++;
            return r;
          };
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    // a poll (10 minutes) far beyond the wait below: only the commit's nudge can deliver in time
    worker(smtpTransport(sink.url), { pollMs: 600_000 }, watched).start();
    await until(() => looks >= 1);
    expect(sink.mails).toHaveLength(0);
    await enqueue(1);
    await sink.waitFor(1, 25_000, 0);
  });
});

async function counterValue(name: string): Promise<number> {
  const metric = await register.getSingleMetric(name)?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

describe('restarts and several workers', () => {
  it('a new worker on the same database delivers the rows a stopped one left, once', async () => {
    sink = await SmtpSink.start();
    const first = worker(smtpTransport(sink.url));
    first.start();
    await enqueue(5);
    await sink.waitFor(5, 20_000, 0);
    await first.stop();
    await enqueue(5); // written while no worker runs
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.mails).toHaveLength(5);
    worker(smtpTransport(sink.url)).start();
    await sink.waitFor(10, 20_000, 300);
    await expectEachDeliveredOnce();
  });

  it('rows claimed by a worker that died are delivered once after the lease runs out', async () => {
    sink = await SmtpSink.start();
    await enqueue(4);
    // a worker claims the batch and dies before sending anything
    expect(await claimDue(db, 10, 5_000)).toHaveLength(4);
    const next = worker(smtpTransport(sink.url));
    expect(await next.runOnce()).toBe(0); // leased: not due yet
    // once the lease runs out (by the database's clock) the next look takes all four
    let taken = 0;
    await until(async () => {
      taken = await next.runOnce();
      return taken > 0;
    });
    expect(taken).toBe(4);
    await sink.waitFor(4, 20_000, 100);
    await expectEachDeliveredOnce();
    expect((await rows()).every((r) => r.attempts === 2)).toBe(true);
  });

  it('stop() finishes the mail in hand and hands the rest back; the next worker sends them once', async () => {
    sink = await SmtpSink.start();
    const smtp = smtpTransport(sink.url);
    const slow: MailTransport = {
      kind: 'smtp',
      send: async (m) => {
        await new Promise((r) => setTimeout(r, 40));
        await smtp.send(m);
      },
      close: () => smtp.close(),
    };
    const w = worker(slow);
    w.start();
    await enqueue(5);
    await until(() => sink.mails.length >= 1);
    await w.stop();
    const sentBeforeStop = sink.mails.length;
    expect(sentBeforeStop).toBeLessThan(5);
    const after = await rows();
    expect(after.filter((r) => r.status === 'SENT')).toHaveLength(sentBeforeStop);
    // handed back due at once and without counting an attempt
    expect(after.filter((r) => r.status === 'PENDING').every((r) => r.attempts === 0)).toBe(true);
    await worker(smtpTransport(sink.url)).runOnce();
    await sink.waitFor(5, 20_000, 100);
    await expectEachDeliveredOnce();
  });

  it('a batch that takes longer than its lease keeps it: no other worker sends its rows meanwhile', async () => {
    sink = await SmtpSink.start();
    const smtp = smtpTransport(sink.url);
    // the first mail's send waits until the test opens the gate: the batch outlives its first lease
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const held: MailTransport = {
      kind: 'smtp',
      send: async (m) => {
        await gate;
        await smtp.send(m);
      },
      close: () => smtp.close(),
    };
    await enqueue(4);
    const leaseMs = 3_000; // renewed every second: two seconds of slack for a busy machine
    const first = worker(held, { leaseMs }).runOnce();
    const rival = worker(smtpTransport(sink.url), { leaseMs });
    await until(async () => (await rows()).every((r) => r.attempts === 1));
    const [{ lease_end }] = await db.query<{ lease_end: Date }>('SELECT max(next_attempt_at) AS lease_end FROM outbox');
    // wait (by the database's clock) until the first lease would have run out, trying as the rival does
    const takenByRival: number[] = [];
    await until(async () => {
      takenByRival.push(await rival.runOnce());
      const [{ over }] = await db.query<{ over: boolean }>('SELECT now() > $1::timestamptz AS over', [lease_end]);
      return over;
    });
    takenByRival.push(await rival.runOnce());
    expect(takenByRival.every((n) => n === 0)).toBe(true);
    open();
    expect(await first).toBe(4);
    await sink.waitFor(4, 20_000, 100);
    await expectEachDeliveredOnce();
    expect((await rows()).every((r) => r.attempts === 1)).toBe(true);
  });

  it(`two workers${currentBackend() === 'postgres' ? ' (two pools)' : ''} on one database send once`, async () => {
    sink = await SmtpSink.start();
    const otherDb = currentBackend() === 'postgres' ? await database.openAnother() : db;
    const sentBy = [0, 0];
    const counting = (i: number): MailTransport => {
      const smtp = smtpTransport(sink.url);
      return {
        kind: 'smtp',
        send: async (m) => {
          await new Promise((r) => setTimeout(r, 2));
          await smtp.send(m);
          sentBy[i]++;
        },
        close: () => smtp.close(),
      };
    };
    await enqueue(200);
    worker(counting(0), { batchSize: 10 }).start();
    worker(counting(1), { batchSize: 10 }, otherDb).start();
    await until(async () => (await rows()).every((r) => r.status === 'SENT'), 30_000);
    await sink.waitFor(200, 20_000, 500);
    expect(sink.mails).toHaveLength(200);
    await expectEachDeliveredOnce();
    expect(sentBy[0]).toBeGreaterThan(0);
    expect(sentBy[1]).toBeGreaterThan(0);
    expect(sentBy[0] + sentBy[1]).toBe(200);
  });
});

describe('without SMTP_URL', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mail-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes each mail once as an .eml file under DATA_DIR/mail/, and a retry overwrites it', async () => {
    const transport = transportFor(testConfig({ dataDir: dir, smtpUrl: undefined }));
    expect(transport.kind).toBe('file');
    const [mail] = await enqueue(3);
    await worker(transport).runOnce();
    const files = (await readdir(join(dir, 'mail'))).sort();
    expect(files).toHaveLength(3);
    expect(files.every((f) => /^\d{8}T\d{6}Z-[0-9a-f-]{36}\.eml$/.test(f))).toBe(true);
    const all = await rows();
    expect(all.every((r) => r.status === 'SENT')).toBe(true);
    const row = all.find((r) => r.recipient === mail.recipient)!;
    const file = files.find((f) => f.includes(row.id))!;
    const parsed = parseMail(await readFile(join(dir, 'mail', file)));
    expect(parsed.messageId).toBe(`<${row.id}@booking-service>`);
    expect(parsed.to).toBe(mail.recipient);
    expect(parsed.subject).toBe('Bitte bestätigen Sie Ihre E-Mail-Adresse');
    // the same row again (a retry after a crash) lands in the same file
    await db.query(`UPDATE outbox SET status = 'PENDING', next_attempt_at = now() WHERE id = $1`, [row.id]);
    await worker(fileTransport(join(dir, 'mail'))).runOnce();
    expect(await readdir(join(dir, 'mail'))).toHaveLength(3);
  });
});
