/**
 * The multi-host DATABASE_URL (libpq's form) and the classification of errors and notices that the
 * failover handling rests on (src/storage/hosts.ts). The servers themselves: test/integration/storage-failover.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  CommitUnknownError,
  DatabaseTimeoutError,
  DatabaseUnavailableError,
  isQueryCanceled,
  isSyncRepCancel,
  isUnavailable,
  parseDatabaseUrl,
} from '../../src/storage/hosts.js';

describe('parseDatabaseUrl', () => {
  it('splits libpq host lists into one URL per host, keeping user, password, database and parameters', () => {
    const parsed = parseDatabaseUrl(
      'postgres://u:p%40ss@h1:5432,h2:5433,[::1]:5434/booking?target_session_attrs=read-write&sslmode=disable',
    );
    expect(parsed.hosts).toEqual([
      { host: 'h1', port: 5432 },
      { host: 'h2', port: 5433 },
      { host: '::1', port: 5434 },
    ]);
    expect(parsed.target).toBe('read-write');
    expect(parsed.hosts.map(parsed.urlFor)).toEqual([
      'postgres://u:p%40ss@h1:5432/booking?sslmode=disable',
      'postgres://u:p%40ss@h2:5433/booking?sslmode=disable',
      'postgres://u:p%40ss@[::1]:5434/booking?sslmode=disable',
    ]);
  });

  it('several hosts default to read-write, one host to any; primary is read-write; a port defaults to 5432', () => {
    expect(parseDatabaseUrl('postgres://u@a,b/db').target).toBe('read-write');
    expect(parseDatabaseUrl('postgres://u@a,b/db').hosts).toEqual([
      { host: 'a', port: 5432 },
      { host: 'b', port: 5432 },
    ]);
    expect(parseDatabaseUrl('postgresql://u@a:6000/db').target).toBe('any');
    expect(parseDatabaseUrl('postgres://u@a/db?target_session_attrs=primary').target).toBe('read-write');
    expect(parseDatabaseUrl('postgres://u@a,b/db?target_session_attrs=any').target).toBe('any');
    expect(() => parseDatabaseUrl('postgres://u@a/db?target_session_attrs=standby')).toThrow(/target_session_attrs/);
  });
});

describe('what counts as the database being away', () => {
  const serverError = (code: string) => Object.assign(new Error('x'), { severity: 'FATAL', code });

  it('a socket error or lost connection, class 08, 25006 and 57P01-57P03; not a refusal of the statement', () => {
    expect(isUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    for (const code of ['25006', '57P01', '57P02', '57P03', '08006', '08001']) {
      expect(isUnavailable(serverError(code)), code).toBe(true);
    }
    for (const code of ['23505', '40001', '23P01', '57014', '42P01'])
      expect(isUnavailable(serverError(code))).toBe(false);
    expect(isUnavailable(new CommitUnknownError('x'))).toBe(true);
    expect(new CommitUnknownError('x')).toBeInstanceOf(DatabaseUnavailableError);
    expect(isUnavailable(undefined)).toBe(false);
  });

  it('a cancelled statement (57014) is a timeout, answered 503 too, but the host is kept', () => {
    expect(isQueryCanceled(serverError('57014'))).toBe(true);
    expect(isQueryCanceled(serverError('57P01'))).toBe(false);
    expect(isQueryCanceled(new Error('x'))).toBe(false);
    expect(new DatabaseTimeoutError('x')).toBeInstanceOf(DatabaseUnavailableError);
  });

  it("a cancelled wait for the synchronous standby is recognised from PostgreSQL's WARNING", () => {
    const detail = 'The transaction has already committed locally, but might not have been replicated to the standby.';
    expect(
      isSyncRepCancel({
        severity: 'WARNING',
        code: '01000',
        message: 'canceling wait for synchronous replication due to user request',
        detail,
      }),
    ).toBe(true);
    expect(
      isSyncRepCancel({
        severity: 'WARNING',
        code: '57P01',
        message:
          'canceling the wait for synchronous replication and terminating connection due to administrator command',
        detail,
      }),
    ).toBe(true);
    expect(isSyncRepCancel({ severity: 'NOTICE', message: 'relation "x" already exists, skipping' })).toBe(false);
    expect(isSyncRepCancel({ severity: 'WARNING', message: 'there is no transaction in progress' })).toBe(false);
  });
});
