import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/errors.js';
import { PARTICIPATION_STATES, planTransition, type ParticipationState } from '../../src/scheduling/transitions.js';

const ALLOWED: [ParticipationState, ParticipationState, string | null][] = [
  ['RESERVED', 'BOOKED', 'participation-booked'],
  ['REQUESTED', 'BOOKED', 'participation-booked'],
  ['REQUESTED', 'CANCELED', 'participation-canceled'],
  ['BOOKED', 'CANCELED', 'participation-canceled'],
  ['RESERVED', 'CANCELED', null],
  ['DELETED', 'CANCELED', null],
  ['BOOKED', 'DELETED', null],
];

describe('participation transition table', () => {
  it.each(ALLOWED)('allows %s -> %s with mail %s', (from, to, mail) => {
    expect(planTransition(from, to)).toEqual({ kind: 'change', mail });
  });

  it.each(PARTICIPATION_STATES)('treats %s -> the same state as no change', (state) => {
    expect(planTransition(state, state)).toEqual({ kind: 'same' });
  });

  const refused = PARTICIPATION_STATES.flatMap((from) => PARTICIPATION_STATES.map((to) => [from, to] as const)).filter(
    ([from, to]) => from !== to && !ALLOWED.some(([f, t]) => f === from && t === to),
  );

  it('refuses exactly the 13 pairs the table does not list', () => {
    expect(refused).toHaveLength(13);
  });

  it.each(refused)('refuses %s -> %s with INVALID_TRANSITION', (from, to) => {
    let error: unknown;
    try {
      planTransition(from, to);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('INVALID_TRANSITION');
    expect((error as DomainError).message).toContain(`${from} cannot change to ${to}`);
  });
});
