/**
 * The database core's one home: migrations recorded with their checksums (a changed one stops
 * start-up, naming the file), repeatable definitions applied again when they change, and the one
 * rule for a live participation, inlined so the count of live places stays an index-only scan.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdsPlace } from '../../src/scheduling/capacity.js';
import { migrate } from '../../src/storage/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('migrations and definitions at start', () => {
  it('apply nothing on a database that is up to date', async () => {
    expect(await migrate(database.db)).toEqual({ applied: [], defined: [] });
  });

  it('refuse to start, naming the file, when an applied migration has changed', async () => {
    const db = database.db;
    const [{ checksum }] = await db.query<{ checksum: string }>(
      `SELECT checksum FROM schema_migrations WHERE version = '011_live_participations_covering'`,
    );
    await db.query(
      `UPDATE schema_migrations SET checksum = 'edited' WHERE version = '011_live_participations_covering'`,
    );
    try {
      await expect(migrate(db)).rejects.toThrow(
        /migration 011_live_participations_covering\.sql has changed since it was applied/,
      );
    } finally {
      await db.query(`UPDATE schema_migrations SET checksum = $1 WHERE version = '011_live_participations_covering'`, [
        checksum,
      ]);
    }
    expect(await migrate(db)).toEqual({ applied: [], defined: [] });
  });

  it('record the files as they are on a database migrated before checksums were kept', async () => {
    const db = database.db;
    await db.query(`UPDATE schema_migrations SET checksum = NULL WHERE version LIKE '00%'`);
    expect(await migrate(db)).toEqual({ applied: [], defined: [] });
    const [{ missing }] = await db.query<{ missing: number }>(
      'SELECT count(*)::int AS missing FROM schema_migrations WHERE checksum IS NULL',
    );
    expect(missing).toBe(0);
  });

  it('apply a definition again when it differs from the one recorded, and only that one', async () => {
    const db = database.db;
    // a stale body, as an older release would have left it
    await db.exec(`CREATE OR REPLACE FUNCTION participation_is_live(p_state text, p_hold_until timestamptz,
                     p_at timestamptz) RETURNS boolean
                   LANGUAGE sql IMMUTABLE AS $$ SELECT false $$`);
    await db.query(
      `UPDATE schema_definitions SET checksum = 'older' WHERE name = 'scheduling/participation_is_live.sql'`,
    );
    expect(await migrate(db)).toEqual({ applied: [], defined: ['scheduling/participation_is_live.sql'] });
    const [{ live }] = await db.query<{ live: boolean }>(`SELECT participation_is_live('BOOKED', NULL, now()) AS live`);
    expect(live).toBe(true);
  });
});

describe('the one rule for a live participation', () => {
  it('gives the same answer in SQL and in its TypeScript twin, at the expiry instant and around it', async () => {
    const at = new Date('2026-06-01T08:00:00.000Z');
    const holds = [null, new Date(at.getTime() - 1), at, new Date(at.getTime() + 1)];
    for (const state of ['RESERVED', 'REQUESTED', 'BOOKED', 'CANCELED', 'DELETED']) {
      for (const hold of holds) {
        const [{ live }] = await database.db.query<{ live: boolean | null }>(
          'SELECT participation_is_live($1, $2, $3) AS live',
          [state, hold, at],
        );
        expect({ state, hold, live: live === true }).toEqual({
          state,
          hold,
          live: holdsPlace({ state, hold_until: hold }, at),
        });
      }
    }
  });

  it('is inlined: counting an appointment’s live places is an index-only scan with the rule spelt out', async () => {
    const plan = await database.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_bitmapscan = off');
      const rows = await tx.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM participations
          WHERE appointment_id = '00000000-0000-0000-0000-000000000000'
            AND participation_is_live(state, hold_until, now())`,
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('Index Only Scan using participations_appointment_idx');
    expect(plan).not.toContain('participation_is_live');
    expect(plan).toMatch(/'RESERVED'/);
  });
});
