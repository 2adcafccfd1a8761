import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createKey, listKeys, revokeKeys } from '../partners/apiKeys.js';
import { openDb } from '../storage/db.js';
import { migrate } from '../storage/migrate.js';

const USAGE = `usage: npm run keys -- create --crm ID [--label TEXT]
       npm run keys -- list [--crm ID]
       npm run keys -- revoke --crm ID [--id KEY_ID]   (without --id: every key of the crm)`;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { crm: { type: 'string' }, label: { type: 'string' }, id: { type: 'string' } },
  });
  const command = positionals[0];
  if (!command || !['create', 'list', 'revoke'].includes(command) || (command !== 'list' && !values.crm)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 1,
    preparedStatements: config.preparedStatements,
  });
  try {
    await migrate(db);
    if (command === 'create') {
      const { id, key } = await createKey(db, values.crm!, values.label);
      console.log(`created key ${id} for crm ${values.crm}:\n${key}\n(shown once; only its hash is stored)`);
    } else if (command === 'list') {
      for (const k of await listKeys(db, values.crm)) {
        const state = k.revokedAt ? 'REVOKED' : 'active';
        console.log(`${k.id}  crm=${k.crmId}  label=${k.label ?? ''}  created=${k.createdAt.toISOString()}  ${state}`);
      }
    } else {
      console.log(`revoked ${await revokeKeys(db, values.crm!, values.id)} key(s) of crm ${values.crm}`);
    }
    return 0;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
