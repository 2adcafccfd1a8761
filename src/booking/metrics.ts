import { sharedCounter } from '../metrics.js';

export const listingMetrics = {
  /** source: cache (a stored answer), shared (waited for a computation another request started), computed */
  answers: sharedCounter('booking_listing_answers_total', 'A1 listings answered, by where the answer came from (cache, shared, computed)', ['source']),
};
