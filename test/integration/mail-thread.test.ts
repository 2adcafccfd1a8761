/**
 * Issue 55: on PostgreSQL the service (dist/main.js, as `npm start`) runs its mail worker in a
 * thread of its own, on connections of its own (application_name booking-mail). Mails committed
 * while it runs go out once each, its counts reach the main thread's /metrics, and SIGTERM stops it
 * with the rest of the service.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { currentBackend } from '../helpers/db.js';
import { serviceStorageEnv, startServiceProcess } from '../helpers/process.js';
import { SmtpSink } from '../helpers/smtpSink.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const MAILS = 40;

describe.runIf(currentBackend() === 'postgres')('the mail thread (PostgreSQL, service process)', () => {
  it('delivers each mail once from its own connections, counts at /metrics, and stops on SIGTERM', async () => {
    const sink = await SmtpSink.start();
    cleanups.push(() => sink.close());
    const storage = await serviceStorageEnv(cleanups);
    const service = startServiceProcess({ ...storage, SMTP_URL: sink.url, MAIL_POLL_MS: '50' });
    cleanups.push(() => void service.child.kill('SIGKILL'));
    const base = await service.listening;

    const client = new pg.Client({ connectionString: storage.DATABASE_URL });
    await client.connect();
    cleanups.push(() => client.end());
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO outbox (crm_id, template, recipient, locale, payload)
       SELECT 'crm-thread', 'user-email-verification', 'user-' || g || '@example.com', 'de',
              jsonb_build_object('firstName', 'Anna', 'lastName', 'Muster', 'email', 'user-' || g || '@example.com',
                                 'reference', 'u' || g || '@crm')
         FROM generate_series(1, $1::int) g RETURNING id`,
      [MAILS],
    );
    await sink.waitFor(MAILS, 25_000, 300);
    expect(sink.mails.map((m) => m.messageId).sort()).toEqual(rows.map((r) => `<${r.id}@booking-service>`).sort());
    const { rows: left } = await client.query(`SELECT id FROM outbox WHERE status <> 'SENT'`);
    expect(left).toEqual([]);

    // the worker's connections are the thread's own
    const { rows: pools } = await client.query<{ app: string }>(
      `SELECT DISTINCT application_name AS app FROM pg_stat_activity WHERE datname = current_database()
         AND application_name LIKE 'booking%' ORDER BY 1`,
    );
    expect(pools.map((p) => p.app)).toContain('booking-mail');

    // the thread's counts are the service's
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const sent = /^booking_mail_sent_total\{template="user-email-verification",transport="smtp"\} (\d+)$/m.exec(
      metrics,
    );
    expect(Number(sent?.[1])).toBe(MAILS);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(service.stderr()).not.toMatch(/mail thread/);
  }, 60_000);
});
