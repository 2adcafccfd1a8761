import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, currentBackend, type TestDatabase } from '../helpers/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

describe('statements', () => {
  it('answers the same text with other values correctly, many times and concurrently', async () => {
    const values = Array.from({ length: 200 }, (_, i) => i);
    const rows = await Promise.all(values.map((i) => t.db.query<{ n: number }>('SELECT $1::int * 2 AS n', [i])));
    expect(rows.map(([r]) => r.n)).toEqual(values.map((i) => i * 2));
  });

  // PostgreSQL keeps a named statement's plan per connection; a schema change that alters its result
  // type (as a migration by another instance could) makes the server refuse the cached plan.
  it.skipIf(currentBackend() !== 'postgres')(
    'survives a schema change under its prepared statements, outside and inside transactions',
    async () => {
      await t.db.exec('CREATE TABLE plan_probe (a int); INSERT INTO plan_probe VALUES (1)');
      const read = () => t.db.query<Record<string, unknown>>('SELECT * FROM plan_probe');
      const readInTx = () => t.db.transaction((tx) => tx.query<Record<string, unknown>>('SELECT * FROM plan_probe'));
      // prepare the statements on every connection of the pool
      await Promise.all(Array.from({ length: 20 }, () => Promise.all([read(), readInTx()])));
      await t.db.exec("ALTER TABLE plan_probe ADD COLUMN b text DEFAULT 'x'");
      const after = await Promise.all(Array.from({ length: 20 }, () => Promise.all([read(), readInTx()])));
      for (const [plain, inTx] of after) {
        expect(plain).toEqual([{ a: 1, b: 'x' }]);
        expect(inTx).toEqual([{ a: 1, b: 'x' }]);
      }
    },
  );
});
