import { sharedCounter as counter } from '../metrics.js';

export const mailMetrics = {
  sent: counter('booking_mail_sent_total', 'Mails delivered (SMTP accepted or .eml written)', [
    'template',
    'transport',
  ]),
  attemptFailures: counter(
    'booking_mail_attempt_failures_total',
    'Delivery attempts that failed and will be retried or given up',
    ['template', 'reason'],
  ),
  failed: counter(
    'booking_mail_failed_total',
    'Mails given up after their last attempt (status FAILED, kept in the outbox)',
    ['template'],
  ),
};
