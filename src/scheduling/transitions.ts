/**
 * The participation state machine (docs/api.md, Booking rules), as data.
 * Anything not listed is refused; asking for the current state again changes nothing.
 */
import { DomainError } from '../errors.js';
import type { MailTemplate } from '../notifications/templateNames.js';

export const PARTICIPATION_STATES = ['RESERVED', 'REQUESTED', 'BOOKED', 'CANCELED', 'DELETED'] as const;
export type ParticipationState = (typeof PARTICIPATION_STATES)[number];

const BOOKED_MAIL: MailTemplate = 'participation-booked';
const CANCELED_MAIL: MailTemplate = 'participation-canceled';

/** from -> to -> the mail the participant gets (null: no mail). */
const TABLE: Record<ParticipationState, Partial<Record<ParticipationState, MailTemplate | null>>> = {
  RESERVED: { BOOKED: BOOKED_MAIL, CANCELED: null },
  REQUESTED: { BOOKED: BOOKED_MAIL, CANCELED: CANCELED_MAIL },
  BOOKED: { CANCELED: CANCELED_MAIL, DELETED: null },
  DELETED: { CANCELED: null },
  CANCELED: {},
};

export type TransitionOutcome = { kind: 'same' } | { kind: 'change'; mail: MailTemplate | null };

/** What moving from `from` to `to` means; 409 INVALID_TRANSITION when the table does not allow it. */
export function planTransition(from: ParticipationState, to: ParticipationState): TransitionOutcome {
  if (from === to) return { kind: 'same' };
  const mail = TABLE[from][to];
  if (mail === undefined) {
    throw new DomainError('INVALID_TRANSITION', `a participation in state ${from} cannot change to ${to}`);
  }
  return { kind: 'change', mail };
}

/** States that hold a place in the appointment (RESERVED only while its hold lasts). */
export const PLACE_HOLDING: readonly ParticipationState[] = ['RESERVED', 'REQUESTED', 'BOOKED'];
