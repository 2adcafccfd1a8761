import { openDb } from '/work/wt/i15/src/storage/db.js';
import { migrate } from '/work/wt/i15/src/storage/migrate.js';
async function main() {
const db = await openDb({ databaseUrl: process.argv[2] ?? 'memory://', dataDir: '' });
console.log(await migrate(db));
console.log(await db.query(`SELECT webhook_iso(now(), 'Europe/Berlin') a, webhook_iso('2026-01-15T10:00:00Z', 'America/St_Johns') b, webhook_iso(now(),'UTC') c`));
console.log(await db.query(`SELECT webhook_enqueue('x','participation.booked','{}'::jsonb) e`));
console.log(await db.query(`SELECT * FROM sweep_expired_holds(now(), 10)`));
await db.close();
}
main();
