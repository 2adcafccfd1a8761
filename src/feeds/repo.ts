/** Named queries of calendar feeds (migration 007). */
import type { Queryable } from '../storage/db.js';
import { appointmentIsCurrentSql, appointmentTakesTimeSql } from '../scheduling/capacity.js';

export interface FeedRow {
  id: string;
  resource_reference: string | null;
  created_at: Date;
}

/** What serving a feed needs to know about it. */
export interface FeedTarget {
  id: string;
  provider_id: string;
  resource_id: string | null;
  provider_name: string;
  resource_name: string | null;
}

const SELECT_FEED = `SELECT f.id, r.reference AS resource_reference, f.created_at
                       FROM calendar_feeds f LEFT JOIN resources r ON r.id = f.resource_id`;

export async function insertFeed(
  db: Queryable,
  feed: { crmId: string; providerId: string; resourceId: string | null; tokenHash: string },
): Promise<FeedRow> {
  const [row] = await db.query<FeedRow>(
    `WITH f AS (INSERT INTO calendar_feeds (crm_id, provider_id, resource_id, token_hash) VALUES ($1, $2, $3, $4)
       RETURNING *)
     SELECT f.id, r.reference AS resource_reference, f.created_at FROM f LEFT JOIN resources r ON r.id = f.resource_id`,
    [feed.crmId, feed.providerId, feed.resourceId, feed.tokenHash],
  );
  return row;
}

export const feedsOf = (db: Queryable, providerId: string) =>
  db.query<FeedRow>(`${SELECT_FEED} WHERE f.provider_id = $1 ORDER BY f.created_at, f.id`, [providerId]);

/** true when the provider had that feed */
export async function deleteFeed(db: Queryable, providerId: string, id: string): Promise<boolean> {
  const gone = await db.query('DELETE FROM calendar_feeds WHERE provider_id = $1 AND id = $2 RETURNING id', [
    providerId,
    id,
  ]);
  return gone.length > 0;
}

export async function feedByTokenHash(db: Queryable, tokenHash: string): Promise<FeedTarget | undefined> {
  const [row] = await db.query<FeedTarget>(
    `SELECT f.id, f.provider_id, f.resource_id, pv.name AS provider_name, r.public_name AS resource_name
       FROM calendar_feeds f JOIN providers pv ON pv.id = f.provider_id LEFT JOIN resources r ON r.id = f.resource_id
      WHERE f.token_hash = $1`,
    [tokenHash],
  );
  return row;
}

/** One appointment of a feed, with exactly what its VEVENT shows. */
export interface FeedEventRow {
  id: string;
  start_at: Date;
  end_at: Date;
  created_at: Date;
  /** the latest change of the appointment or of a participation that ever showed in it */
  changed_at: Date;
  product_name: string | null;
  resource_public_name: string | null;
  resource_internal_name: string | null;
  address: unknown;
  /**
   * REQUESTED and BOOKED participations, in booking order; answers as notifications/answers.ts keeps them (null: none)
   */
  people: { name: string | null; state: 'REQUESTED' | 'BOOKED'; answers?: unknown }[];
}

/**
 * docs/provider-links.md: appointments overlapping [$3, $4) that take their time
 * (appointment_takes_time), counting only REQUESTED and BOOKED places: RESERVED holds are left out
 * entirely, since they come and go without being bookings and the feed must not change with them.
 */
const FEED_EVENTS_SQL = `
    SELECT a.id, a.start_at, a.end_at, a.created_at,
           GREATEST(a.updated_at, max(p.updated_at)) AS changed_at,
           COALESCE(a.product_name, pr.name) AS product_name,
           r.public_name AS resource_public_name, r.internal_name AS resource_internal_name,
           COALESCE(a.address, r.address) AS address,
           COALESCE(json_agg(json_build_object('name', c.user_name, 'state', p.state, 'answers', p.answers)
             ORDER BY p.created_at, p.id)
                      FILTER (WHERE p.state IN ('REQUESTED', 'BOOKED')), '[]'::json) AS people
      FROM appointments a
      LEFT JOIN products pr ON pr.id = a.product_id
      LEFT JOIN resources r ON r.id = a.resource_id
      LEFT JOIN participations p ON p.appointment_id = a.id AND p.state <> 'RESERVED'
      LEFT JOIN customers c ON c.id = p.customer_id
     WHERE a.provider_id = $1 AND ($2::uuid IS NULL OR a.resource_id = $2)
       AND ${appointmentIsCurrentSql('a')} AND a.end_at > $3 AND a.start_at < $4
     GROUP BY a.id, pr.id, r.id
    HAVING ${appointmentTakesTimeSql('a', "bool_or(p.state IN ('REQUESTED', 'BOOKED'))")}`;

type FeedScope = Pick<FeedTarget, 'provider_id' | 'resource_id'>;

export function feedEvents(db: Queryable, feed: FeedScope, from: Date, to: Date): Promise<FeedEventRow[]> {
  return db.query<FeedEventRow>(`${FEED_EVENTS_SQL} ORDER BY a.start_at, a.id`, [
    feed.provider_id,
    feed.resource_id,
    from,
    to,
  ]);
}

/**
 * A digest of exactly the rows feedEvents would return, computed in the database: equal digests,
 * equal rows. Polling an unchanged feed then moves one short value instead of every row.
 */
export async function feedEventsDigest(db: Queryable, feed: FeedScope, from: Date, to: Date): Promise<string> {
  const [row] = await db.query<{ digest: string }>(
    `SELECT md5(COALESCE(string_agg(ev::text, '|' ORDER BY ev.start_at, ev.id), '')) || ':' || count(*) AS digest
       FROM (${FEED_EVENTS_SQL}) ev`,
    [feed.provider_id, feed.resource_id, from, to],
  );
  return row.digest;
}
