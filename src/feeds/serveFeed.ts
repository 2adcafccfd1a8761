/**
 * GET of a feed URL. Calendar apps poll, so serving must be cheap: one query asks the database for a
 * digest of the feed's rows; only when it differs from the last time are the rows read and the
 * iCalendar text rendered again (the library's rendering costs far more than the query). The ETag is the hash of the
 * text itself, so it changes exactly when the content does, on every instance alike.
 */
import { createHash } from 'node:crypto';
import type { Deps } from '../context.js';
import { notFound } from '../errors.js';
import type { MailLocale } from '../notifications/format.js';
import { contentDigest, renderFeed } from './calendar.js';
import { eventSequences } from '../calendars/eventSequences.js';
import { hashFeedToken, isFeedToken } from './feeds.js';
import * as repo from './repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** docs/provider-links.md: appointments from 30 days back to 365 days ahead. */
export const FEED_WINDOW = { pastDays: 30, futureDays: 365 } as const;

export interface ServedFeed {
  body: string;
  etag: string;
}

interface Rendered extends ServedFeed {
  inputs: string;
}

/** The last rendering per feed and language, for the feeds polled most recently. */
export class FeedCache {
  private readonly entries = new Map<string, Rendered>();
  constructor(private readonly capacity = 500) {}

  get(key: string): Rendered | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // most recently used goes last
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Rendered): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

const invalidFeed = () => notFound('no calendar feed at this address (never created, or revoked)');

export async function serveFeed(deps: Deps, cache: FeedCache, token: string, locale: MailLocale): Promise<ServedFeed> {
  if (!isFeedToken(token)) throw invalidFeed();
  const feed = await repo.feedByTokenHash(deps.db, hashFeedToken(token));
  if (!feed) throw invalidFeed();
  const now = deps.clock.now().getTime();
  const [from, to] = [new Date(now - FEED_WINDOW.pastDays * DAY_MS), new Date(now + FEED_WINDOW.futureDays * DAY_MS)];
  const name = [feed.provider_name, feed.resource_name].filter(Boolean).join(' – ');
  const inputs = `${await repo.feedEventsDigest(deps.db, feed, from, to)}:${name}`;
  const key = `${feed.id}:${locale}`;
  const cached = cache.get(key);
  if (cached?.inputs === inputs) return cached;
  // A change between the digest and this read gives the next request another digest, so it renders
  // again (rows never return to an earlier digest: every change moves an updated_at).
  const rows = await repo.feedEvents(deps.db, feed, from, to);
  const sequences = await eventSequences(
    deps.db,
    'feed',
    rows.map((row) => ({ id: row.id, digest: contentDigest(row) })),
  );
  const body = renderFeed(name, rows, locale, sequences);
  const rendered = { inputs, body, etag: `"${digest(body)}"` };
  cache.set(key, rendered);
  return rendered;
}
