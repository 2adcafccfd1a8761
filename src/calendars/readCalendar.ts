/**
 * One read of a subscribed calendar, whatever its kind, turned into busy intervals: the I/O
 * (fetchIcs.ts for iCalendar URLs, caldav.ts for CalDAV collections) and the expansion
 * (busyIntervals.ts) behind one call, so the first read
 * (before the 201), POST sync and the refresh job read alike.
 */
import type { Queryable } from '../storage/db.js';
import { busyIntervals, CalendarFormatError } from './busyIntervals.js';
import { readCalDav } from './caldav.js';
import { CalendarUnreadable, fetchIcs } from './fetchIcs.js';
import { mergeIntervals, type Interval } from './intervals.js';

export interface CalendarSource {
  kind: 'ics' | 'caldav';
  url: string;
  username: string | null;
  password: string | null;
}

/** What makes the next read conditional: ETag/Last-Modified (ics), ctag/sync-token (caldav). */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
  ctag: string | null;
  syncToken: string | null;
}

export const NO_VALIDATORS: Validators = { etag: null, lastModified: null, ctag: null, syncToken: null };

export type { Interval };

export type CalendarRead = { kind: 'unchanged' } | { kind: 'ok'; intervals: Interval[]; validators: Validators };

export interface ReadOptions {
  allowPrivate: boolean;
  /** the provider's zone: all-day events and floating times are read in it */
  zone: string;
  fromMs: number;
  toMs: number;
  /** the database, to leave out this service's own events (UID = an appointment's id) */
  db: Queryable;
}

/**
 * Reads the calendar; `known` null reads it whole. Throws CalendarUnreadable (422) when it cannot be read or parsed.
 */
export async function readCalendar(
  source: CalendarSource,
  known: Validators | null,
  opts: ReadOptions,
): Promise<CalendarRead> {
  let texts: string[];
  let validators: Validators;
  if (source.kind === 'ics') {
    const read = await fetchIcs(source.url, known ?? NO_VALIDATORS, { allowPrivate: opts.allowPrivate });
    if (read.kind === 'unchanged') return read;
    texts = [read.text];
    validators = { ...NO_VALIDATORS, etag: read.etag, lastModified: read.lastModified };
  } else {
    const account = { url: source.url, username: source.username ?? '', password: source.password ?? '' };
    const read = await readCalDav(
      account,
      known ?? NO_VALIDATORS,
      { fromMs: opts.fromMs, toMs: opts.toMs },
      { allowPrivate: opts.allowPrivate },
    );
    if (read.kind === 'unchanged') return read;
    texts = read.objects;
    validators = { ...NO_VALIDATORS, ctag: read.ctag, syncToken: read.syncToken };
  }
  const own = await ownUids(opts.db, texts);
  const intervals: Interval[] = [];
  try {
    for (const text of texts) {
      intervals.push(
        ...busyIntervals(text, {
          providerZone: opts.zone,
          fromMs: opts.fromMs,
          toMs: opts.toMs,
          isOwnUid: (uid) => own.has(uid.toLowerCase()),
        }),
      );
    }
  } catch (err) {
    if (err instanceof CalendarFormatError) throw new CalendarUnreadable(err.message);
    throw err;
  }
  return { kind: 'ok', intervals: mergeIntervals(intervals, opts.fromMs, opts.toMs), validators };
}

const UID_LINE = /^UID[;:](?:[^:\r\n]*:)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\s*$/gim;

/**
 * The UIDs in the texts that are ids of this service's appointments (its feed's and write-back's events), lower case.
 */
async function ownUids(db: Queryable, texts: string[]): Promise<Set<string>> {
  const candidates = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(UID_LINE)) candidates.add(m[1].toLowerCase());
  if (candidates.size === 0) return candidates;
  const rows = await db.query<{ id: string }>('SELECT id::text AS id FROM appointments WHERE id = ANY($1::uuid[])', [
    [...candidates],
  ]);
  return new Set(rows.map((r) => r.id));
}
