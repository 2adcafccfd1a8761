import { sharedCounter } from '../metrics.js';

export const listingMetrics = {
  /** what a read brought: versions only (nothing changed), changes (the changed appointments), full (all the data) */
  reads: sharedCounter('booking_listing_reads_total', 'A1 reads, by what they read: versions (nothing changed), changes (only the changed appointments) or full', ['read']),
  /** source: cache (a stored answer), shared (waited for a computation another request started), computed */
  answers: sharedCounter('booking_listing_answers_total', 'A1 listings answered, by where the answer came from (cache, shared, computed)', ['source']),
};

/** kept: decided on a kept lookup; stale: a kept lookup no longer held, read again; read: none kept */
export const bookingLookupsTotal = sharedCounter(
  'booking_lookups_total',
  'Reservations by the lookup of resource and slot they were decided on: kept (no read), stale (kept but out of date, read again) or read',
  ['lookup'],
);
