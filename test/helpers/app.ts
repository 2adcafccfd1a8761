import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { testConfig, type Config } from '../../src/config.js';
import type { Clock } from '../../src/context.js';
import { ensureKey } from '../../src/partners/apiKeys.js';
import { startBackgroundJobs } from '../../src/jobs.js';
import type { Db } from '../../src/storage/db.js';
import { ContractCheck } from './contract.js';
import { createTestDatabase, type Prepare, type TestDatabase } from './db.js';

/** A clock tests move by hand. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-06-01T08:00:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  set(iso: string | Date): void {
    this.current = new Date(iso);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface TestApp {
  app: App;
  db: Db;
  database: TestDatabase;
  clock: TestClock;
  config: Config;
  /** the OpenAPI document held to every answer (test/helpers/contract.ts) */
  contract: ContractCheck;
  close(): Promise<void>;
}

/**
 * The real app on a fresh database of the backend under test. Share one per test file; tests stay
 * apart by working under their own partner (crmId).
 */
export async function startTestApp(
  overrides: Partial<Config> = {},
  clock = new TestClock(),
  options: { jobs?: boolean; prepare?: Prepare; logger?: object } = {},
): Promise<TestApp> {
  const database = await createTestDatabase(undefined, options.prepare);
  const config = testConfig(overrides);
  const contract = new ContractCheck();
  const app = await buildApp({
    config,
    db: database.db,
    listingDb: database.listingDb,
    clock,
    logger: options.logger ?? false,
    instrument: contract.instrument,
  });
  await app.ready();
  contract.load(app.swagger());
  // every injected request fails its test when an answer broke the document
  const inject = app.inject.bind(app);
  app.inject = (async (...args: Parameters<typeof inject>) => {
    if (args.length === 0) return inject();
    const response = await (inject as (...a: unknown[]) => Promise<unknown>)(...args);
    contract.assertClean();
    return response;
  }) as typeof app.inject;
  // jobs: true runs the process's background work (mail worker, ...) as main.ts does
  const jobs = options.jobs ? startBackgroundJobs({ config, db: database.db, log: app.log, clock }) : null;
  return {
    app,
    db: database.db,
    database,
    clock,
    config,
    contract,
    close: async () => {
      await app.close();
      await jobs?.stop();
      await database.drop();
      contract.assertClean();
    },
  };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Partner {
  crmId: string;
  key: string;
  /** a request under /crms/{crmId} with the partner's key */
  call(
    method: Method,
    path: string,
    body?: unknown,
    query?: Record<string, string | string[]>,
  ): Promise<LightMyRequestResponse>;
}

export function uniqueId(prefix = 'id'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A new partner with its own API key; every test that uses one sees only its own data. */
export async function newPartner(t: TestApp): Promise<Partner> {
  const crmId = uniqueId('crm');
  const key = randomBytes(16).toString('hex');
  await ensureKey(t.db, crmId, key);
  return {
    crmId,
    key,
    call: (method, path, body, query) =>
      t.app.inject({
        method,
        url: `/crms/${crmId}${path}`,
        headers: { 'x-service-client-id': key },
        ...(body === undefined ? {} : { payload: body as object }),
        ...(query ? { query } : {}),
      }),
  };
}
