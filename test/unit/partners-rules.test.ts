import { describe, expect, it } from 'vitest';
import { emailVariant, isBranch, isReference, USERNAME_PATTERN } from '../../src/partners/rules.js';
import { loadConfig, ConfigError } from '../../src/config.js';

describe('reference rule', () => {
  it.each(['u1@crm', 'a.b-c_d@platform.x', 'res@prov@crm'.split('@').slice(1).join('@')])('accepts %s', (ref) => {
    expect(isReference(ref)).toBe(true);
  });
  it.each(['', 'noat', '@crm', 'u1@', 'u1@crm@x', 'u 1@crm'])('rejects %j', (ref) => {
    expect(isReference(ref)).toBe(false);
  });
});

describe('username rule (the pattern the request schemas publish)', () => {
  const username = new RegExp(USERNAME_PATTERN, 'u');
  it.each(['anna', 'anna.muster', 'anna+1@example.com', 'Ännä-01'])('accepts %s', (u) => {
    expect(username.test(u)).toBe(true);
  });
  it.each(['a/b', 'a?b', 'a:b', 'a&b', 'a#b', 'a\\b', 'a\u0000b', ''])('rejects %j', (u) => {
    expect(username.test(u)).toBe(false);
  });
});

describe('email variant rule', () => {
  it('puts a numbered plus-suffix into the local part', () => {
    expect(emailVariant('anna@example.com', 1)).toBe('anna+1@example.com');
    expect(emailVariant('anna+x@example.com', 3)).toBe('anna+x+3@example.com');
  });
});

describe('branches', () => {
  it('knows exactly the five branches of the spec', () => {
    expect(['real-estate', 'facilities', 'handyman', 'sports-and-leisure', 'misc'].every(isBranch)).toBe(true);
    expect(isBranch('banking')).toBe(false);
  });
});

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './data',
      reservationHoldSeconds: 180,
      defaultTimeZone: 'Europe/Berlin',
      publicBaseUrl: 'http://127.0.0.1:3000',
    });
  });
  it('believes X-Forwarded-For from local and private proxies by default; TRUST_PROXY sets whose', () => {
    expect(loadConfig({}).trustProxy).toEqual(['loopback', 'linklocal', 'uniquelocal']);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.1.0.0/16, 2001:db8::1, loopback' }).trustProxy).toEqual([
      '10.1.0.0/16',
      '2001:db8::1',
      'loopback',
    ]);
  });
  it('reads REMINDER_MINUTES_BEFORE as a list of offsets (default a day, empty none)', () => {
    expect(loadConfig({}).reminderMinutesBefore).toEqual([1440]);
    expect(loadConfig({ REMINDER_MINUTES_BEFORE: '60, 1440,60' }).reminderMinutesBefore).toEqual([1440, 60]);
    expect(loadConfig({ REMINDER_MINUTES_BEFORE: '' }).reminderMinutesBefore).toEqual([]);
  });
  it('parses API_KEYS pairs', () => {
    expect(loadConfig({ API_KEYS: 'crm1:k1, crm2:k:2' }).apiKeys).toEqual([
      { crmId: 'crm1', key: 'k1' },
      { crmId: 'crm2', key: 'k:2' },
    ]);
  });
  it.each([
    ['PORT', { PORT: 'abc' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['API_KEYS', { API_KEYS: 'nokey' }],
    ['RESERVATION_HOLD_SECONDS', { RESERVATION_HOLD_SECONDS: '-5' }],
    ['DEFAULT_TIME_ZONE', { DEFAULT_TIME_ZONE: 'Mars/Olympus' }],
    ['SMTP_URL', { SMTP_URL: 'http://x' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'not a url' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'loopback,proxy.example' }],
    ['REMINDER_MINUTES_BEFORE', { REMINDER_MINUTES_BEFORE: '60,soon' }],
    ['REMINDER_MINUTES_BEFORE', { REMINDER_MINUTES_BEFORE: '0' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/40' }],
  ])('stops with a message naming %s when it is bad', (name, env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
