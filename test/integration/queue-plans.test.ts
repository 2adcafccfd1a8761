/**
 * The mail and webhook workers' statements read only the rows they touch, however many wait: 3,000
 * pending mails and deliveries, with the planner's statistics taken while none was pending (as after
 * a quiet spell, before a rush). Each statement is run under EXPLAIN ANALYZE (the real statement of
 * src/notifications/queue.ts and src/webhooks/queue.ts, sent through a Queryable that prefixes it)
 * and the rows its plan read from the queue table are counted. Before pendingByKey and migration
 * 027, a SENT mark walked every pending mail (3,000 rows), a claim of 16 deliveries sorted all
 * 3,000 due ones, and a claim of 40 mails sorted every due mail by age.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue as claimDueMails, markSentAndReread } from '../../src/notifications/queue.js';
import type { Queryable } from '../../src/storage/db.js';
import { claimDue as claimDueDeliveries, markSucceeded } from '../../src/webhooks/queue.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const WAITING = 3_000;

let t: TestDatabase;
let subscriptionId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  await t.db.exec(`ALTER TABLE outbox SET (autovacuum_enabled = false);
    ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)`);
  [{ id: subscriptionId }] = await t.db.query<{ id: string }>(
    `INSERT INTO webhook_subscriptions (crm_id, url, secret) VALUES ('crm', 'http://127.0.0.1:9/', 's') RETURNING id`,
  );
  // delivered rows, and statistics that know no pending one
  await t.db.query(
    `INSERT INTO outbox (template, recipient, locale, payload, status, sent_at)
     SELECT 'booking-confirmed', 'c' || i || '@example.com', 'de', jsonb_build_object('i', i), 'SENT', now()
       FROM generate_series(1, $1) i`,
    [WAITING * 2],
  );
  await t.db.query(
    `WITH e AS (INSERT INTO webhook_events (crm_id, type, body)
                SELECT 'crm', 'participation.booked', '{}' FROM generate_series(1, $1) RETURNING id)
     INSERT INTO webhook_deliveries (subscription_id, event_id, status) SELECT $2, e.id, 'SUCCEEDED' FROM e`,
    [WAITING * 2, subscriptionId],
  );
  await t.db.exec('ANALYZE outbox; ANALYZE webhook_deliveries');
  // then a rush: WAITING of each pending and due, unknown to the statistics
  await t.db.query(
    `UPDATE outbox SET status = 'PENDING', sent_at = NULL, next_attempt_at = now() - interval '1 minute'
      WHERE id IN (SELECT id FROM outbox ORDER BY created_at LIMIT $1)`,
    [WAITING],
  );
  await t.db.query(
    `UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = now() - interval '1 minute'
      WHERE event_id IN (SELECT event_id FROM webhook_deliveries ORDER BY seq LIMIT $1)`,
    [WAITING],
  );
}, 120_000);
afterAll(() => t.drop());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** A Queryable that runs each statement under EXPLAIN ANALYZE (so it takes effect) and keeps the plans. */
function explaining(db: Queryable) {
  const plans: PlanNode[] = [];
  const queryable: Queryable = {
    query: async <T>(sql: string, params: unknown[] = []) => {
      const [row] = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        params,
      );
      const plan = row['QUERY PLAN'];
      plans.push((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan);
      return [] as T[];
    },
    exec: (sql) => db.exec(sql),
  };
  return { queryable, plans };
}

/** Rows the plan's scans of `table` read, those a filter then removed included. */
function rowsRead(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table && /Scan/.test(node['Node Type'])
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0);
}

async function pendingIds(table: 'outbox', n: number): Promise<string[]> {
  const rows = await t.db.query<{ id: string }>(
    `SELECT id FROM ${table} WHERE status = 'PENDING' ORDER BY created_at LIMIT $1`,
    [n],
  );
  return rows.map((r) => r.id);
}

describe(`with ${WAITING} waiting and statistics that know none`, () => {
  it("a mail's SENT mark and the reread of the next read two rows of the outbox", async () => {
    const [id, nextId] = await pendingIds('outbox', 2);
    const { queryable, plans } = explaining(t.db);
    await markSentAndReread(queryable, id, nextId);
    expect(rowsRead(plans[0], 'outbox')).toBeLessThanOrEqual(2);
    const [{ status }] = await t.db.query<{ status: string }>('SELECT status FROM outbox WHERE id = $1', [id]);
    expect(status).toBe('SENT');
  });

  it('a claim of 40 mails reads about 40 of the due ones', async () => {
    const { queryable, plans } = explaining(t.db);
    await claimDueMails(queryable, 40, 60_000);
    // the due ones in index order up to 40, then each again by its key for the UPDATE
    expect(rowsRead(plans[0], 'outbox')).toBeLessThanOrEqual(2 * 40);
    const [{ leased }] = await t.db.query<{ leased: number }>(
      `SELECT count(*)::int AS leased FROM outbox WHERE status = 'PENDING' AND next_attempt_at > now()`,
    );
    expect(leased).toBe(40);
  });

  it('a claim of 16 deliveries of a subscription reads about 16 of its due ones', async () => {
    const { queryable, plans } = explaining(t.db);
    await claimDueDeliveries(queryable, { endpoints: 4, perEndpoint: 16, leaseMs: 60_000, busy: [] });
    // the EXISTS and min() probes read one row each, the claim its 16, the UPDATE each again by key
    expect(rowsRead(plans[0], 'webhook_deliveries')).toBeLessThanOrEqual(40);
    const [{ leased }] = await t.db.query<{ leased: number }>(
      `SELECT count(*)::int AS leased FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at > now()`,
    );
    expect(leased).toBe(16);
  });

  it('marking 16 deliveries SUCCEEDED reads those 16 by their key', async () => {
    const due = await t.db.query<{ event_id: string }>(
      `SELECT event_id FROM webhook_deliveries WHERE status = 'PENDING' ORDER BY seq LIMIT 16`,
    );
    const { queryable, plans } = explaining(t.db);
    await markSucceeded(
      queryable,
      due.map((d) => ({ delivery: { subscription_id: subscriptionId, event_id: d.event_id }, status: 200 })),
    );
    expect(rowsRead(plans[0], 'webhook_deliveries')).toBeLessThanOrEqual(16);
  });
});
