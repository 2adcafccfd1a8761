import { describe, expect, it } from 'vitest';
import { contactChannelOf } from '../../src/booking/bookableView.js';
import { productVisibleOn, publicVisible } from '../../src/offerings/channels.js';
import { readRequestSpan, spanIn } from '../../src/scheduling/time.js';
import { DomainError } from '../../src/errors.js';
import type { ResolvedContact } from '../../src/offerings/contact.js';

const contact = (over: Partial<ResolvedContact> = {}): ResolvedContact => ({
  source: 'profile',
  name: 'Olga',
  email: 'olga@acme.example',
  mobile: null,
  phone: '+49301234',
  channels: [],
  language: null,
  ...over,
});
const fields = { start: 'body.from', end: 'body.to' };

describe('contactChannelOf', () => {
  it('takes the channel of the resource contactChannelType from the resolved contact', () => {
    expect(
      contactChannelOf('video', contact({ channels: [{ type: 'video', value: 'https://meet.example/olga' }] })),
    ).toEqual({ type: 'video', value: 'https://meet.example/olga' });
  });
  it('falls back to the contact email, mobile or phone for those types', () => {
    expect(contactChannelOf('email', contact())).toEqual({ type: 'email', value: 'olga@acme.example' });
    expect(contactChannelOf('phone', contact())).toEqual({ type: 'phone', value: '+49301234' });
  });
  it('is null without a type, without a contact, or without a value', () => {
    expect(contactChannelOf(null, contact())).toBeNull();
    expect(contactChannelOf('email', null)).toBeNull();
    expect(contactChannelOf('mobile', contact())).toBeNull();
    expect(contactChannelOf('video', contact())).toBeNull();
  });
});

describe('channels', () => {
  it('offers exclusive products only on RESOURCE_EXCLUSIVE and hides public_visible there', () => {
    expect(productVisibleOn({ exclusive: true }, 'RESOURCE_PUBLIC')).toBe(false);
    expect(productVisibleOn({ exclusive: true }, 'RESOURCE_EXCLUSIVE')).toBe(true);
    expect(productVisibleOn({ exclusive: false }, 'CALENDAR_PUBLIC')).toBe(true);
    expect(publicVisible('RESOURCE_EXCLUSIVE')).toBe(false);
    expect(publicVisible('RESOURCE_REFERENCE')).toBe(true);
  });
});

describe('readRequestSpan', () => {
  const message = (start: string, end: string) => {
    try {
      readRequestSpan(start, end, fields);
      return null;
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      return (err as DomainError).message;
    }
  };
  it('accepts a start before the end, with offsets, without, or in UTC', () => {
    expect(message('2026-06-02T09:00', '2026-06-02T09:30')).toBeNull();
    expect(message('2026-06-02T09:00:00+02:00', '2026-06-02T07:30:00Z')).toBeNull();
  });
  it('rejects an end not after the start when both times are read alike', () => {
    expect(message('2026-06-02T09:30', '2026-06-02T09:30')).toBe('body.to must be after body.from');
    expect(message('2026-06-02T09:30Z', '2026-06-02T09:00Z')).toBe('body.to must be after body.from');
  });
  it('leaves mixed forms to the check in the provider zone', () => {
    // 09:00 wall clock in Berlin is 07:00Z, so this pair is valid there
    expect(message('2026-06-02T09:00', '2026-06-02T08:00:00Z')).toBeNull();
  });
  it('reads each time once: the span resolves in the provider zone as parseInstant would, DST gap included', () => {
    const span = readRequestSpan('2026-03-29T02:30', '2026-03-29T04:00:00+02:00', fields);
    expect(spanIn(span, 'Europe/Berlin').start.toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(() => spanIn(readRequestSpan('2026-06-02T09:00', '2026-06-02T07:00:00Z', fields), 'Europe/Berlin')).toThrow(
      'body.to must be after body.from',
    );
  });
  it('names the field of a time that is not ISO 8601', () => {
    expect(message('tomorrow', '2026-06-02T09:30')).toMatch(/^body\.from must be an ISO 8601/);
    expect(message('2026-06-02T09:00', '2026-13-02T09:30')).toMatch(/^body\.to must be an ISO 8601/);
  });
});
