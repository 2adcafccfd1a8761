import { Counter, Gauge, register } from 'prom-client';

// several workers (and test files) in one process share the default registry
const counter = (name: string, help: string, labelNames: string[]) =>
  (register.getSingleMetric(name) as Counter<string> | undefined) ?? new Counter({ name, help, labelNames });
const gauge = (name: string, help: string) => (register.getSingleMetric(name) as Gauge | undefined) ?? new Gauge({ name, help });

export const webhookMetrics = {
  /** outcome: succeeded, retrying (an attempt failed, another follows), failed (given up) */
  attempts: counter('booking_webhook_deliveries_total', 'Webhook delivery attempts by outcome (succeeded, retrying, failed) and event type', ['outcome', 'event_type']),
  oldestPending: gauge('booking_webhook_oldest_pending_seconds', 'Age of the oldest PENDING webhook delivery (0 when none)'),
};
