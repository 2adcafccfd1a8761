/**
 * The one error type domain code throws. `code` is stable and part of the wire contract;
 * http/errors.ts maps it to a status and the documented error body.
 */
export type ErrorCode =
  | 'VALIDATION'
  | 'NOT_FOUND'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'CONFLICT'
  | 'DUPLICATE'
  | 'CAPACITY_EXHAUSTED'
  | 'INVALID_TRANSITION'
  | 'AppointmentAlreadyBookedException'
  | 'SLOT_TAKEN'
  | 'HOLD_LIMIT'
  | 'TOO_LATE'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'BOOKING_WINDOW'
  | 'BOOKING_LIMIT'
  | 'CONSUMER_LIMIT'
  | 'CANCEL_NOTICE'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'CALENDAR_UNREADABLE'
  | 'CALENDAR_URL_NOT_ALLOWED';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (message: string) => new DomainError('VALIDATION', message);
export const notFound = (message: string) => new DomainError('NOT_FOUND', message);
export const conflict = (message: string) => new DomainError('CONFLICT', message);
