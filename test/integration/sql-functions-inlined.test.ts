/**
 * Every function of ours written in SQL is inlined by the planner into the statement that calls it.
 * One that cannot be (a body with a FROM or a subquery, called as a value) runs through the SQL
 * function executor, which plans its body again for every statement that calls it: 0.3-0.4 ms per
 * call for webhook_appointment_json on the bench machine, three times per booking with a webhook
 * subscription. Such a function is written in PL/pgSQL, which keeps its plans for the session
 * (docs/decisions.md, "SQL functions the planner cannot inline").
 *
 * Each function is called with parameters under a generic plan (so that nothing is folded into
 * constants), as a value or, for a set-returning one, in FROM; the plan must not name it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

interface SqlFunction {
  name: string;
  returns_set: boolean;
  arg_types: string[];
}

let t: TestDatabase;
let functions: SqlFunction[];

beforeAll(async () => {
  t = await createTestDatabase();
  functions = await t.db.query<SqlFunction>(
    `SELECT p.proname AS name, p.proretset AS returns_set,
            ARRAY(SELECT format_type(a, NULL) FROM unnest(p.proargtypes) a) AS arg_types
       FROM pg_proc p
       JOIN pg_namespace n ON n.oid = p.pronamespace
       JOIN pg_language l ON l.oid = p.prolang
      WHERE l.lanname = 'sql' AND n.nspname = current_schema()
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                                                     AND d.deptype = 'e')
      ORDER BY p.proname`,
  );
}, 120_000);
afterAll(() => t.drop());

/** The plan of a call of `f` with parameters, as text. */
async function planOf(f: SqlFunction): Promise<string> {
  const params = f.arg_types.map((_, i) => `$${i + 1}`).join(', ');
  const call = f.returns_set ? `SELECT * FROM ${f.name}(${params})` : `SELECT ${f.name}(${params})`;
  const nulls = f.arg_types.map(() => 'NULL').join(', ');
  return t.db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL plan_cache_mode = force_generic_plan`);
    await tx.exec(`PREPARE inlined_check(${f.arg_types.join(', ')}) AS ${call}`);
    try {
      const rows = await tx.query<Record<string, unknown>>(
        `EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE inlined_check(${nulls})`,
      );
      return JSON.stringify(rows);
    } finally {
      await tx.exec('DEALLOCATE inlined_check');
    }
  });
}

describe('SQL functions are inlined where they are called', () => {
  it('finds the SQL functions (the check has something to check)', () => {
    expect(functions.map((f) => f.name)).toEqual(
      expect.arrayContaining(['participation_is_live', 'appointment_is_current', 'webhook_subscribers']),
    );
  });

  it('leaves none of them to be planned again with every call', async () => {
    const notInlined: string[] = [];
    for (const f of functions) {
      if (new RegExp(`\\b${f.name}\\(`).test(await planOf(f))) notInlined.push(f.name);
    }
    expect(notInlined).toEqual([]);
  });
});
