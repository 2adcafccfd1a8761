import { sharedCounter } from '../metrics.js';

export const listingMetrics = {
  /** what a read brought: versions only (nothing changed), changes (the changed appointments), full (all the data) */
  reads: sharedCounter(
    'booking_listing_reads_total',
    'A1 reads, by what they read: versions (nothing changed), changes (only the changed appointments) or full',
    ['read'],
  ),
  /** source: cache (a stored answer), shared (waited for a computation another request started), computed */
  answers: sharedCounter(
    'booking_listing_answers_total',
    'A1 listings answered, by where the answer came from (cache, shared, computed)',
    ['source'],
  ),
};
