import { sharedCounter as counter, sharedGauge as gauge } from '../metrics.js';

export const webhookMetrics = {
  /** outcome: succeeded, retrying (an attempt failed, another follows), failed (given up) */
  attempts: counter(
    'booking_webhook_deliveries_total',
    'Webhook delivery attempts by outcome (succeeded, retrying, failed) and event type',
    ['outcome', 'event_type'],
  ),
  oldestPending: gauge(
    'booking_webhook_oldest_pending_seconds',
    'Age of the oldest PENDING webhook delivery (0 when none)',
  ),
};
