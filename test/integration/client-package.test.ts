/**
 * clients/typescript as an integrator gets it (its README): `npm pack` builds it (prepare) and packs
 * dist with it; the tarball installs into a fresh project of the integrator's, a usage file
 * type-checks there with tsc against the installed package (a wrong path is a type error), and,
 * compiled, it runs against the live service.
 *
 * The install resolves the client's dependencies from the npm cache (`--prefer-offline`; npm ci
 * filled it). Packaging does not depend on the database: this runs in the pglite project only.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type TestApp } from '../helpers/app.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

const USAGE = `import { createBookingClient, verifyWebhook, type BookingClient } from '@booking-service/client';

const [baseUrl, crmId, apiKey, reference] = process.argv.slice(2);
const api: BookingClient = createBookingClient({ baseUrl, apiKey });

const created = await api.POST('/crms/{crmId}/user', {
  params: { path: { crmId } },
  body: {
    reference,
    email: \`\${reference.split('@')[0]}@example.com\`,
    username: reference.split('@')[0],
    lastName: 'Owner',
  },
});
const read = await api.GET('/crms/{crmId}/user/{reference}', { params: { path: { crmId, reference } } });
const missing = await api.GET('/crms/{crmId}/user/{reference}', {
  params: { path: { crmId, reference: 'nobody@crm' } },
});
console.log(JSON.stringify({
  created: created.response.status,
  lastName: read.data?.user.lastName,
  missing: missing.response.status,
  errorCode: missing.error?.errors[0].errorCode,
  verifier: typeof verifyWebhook,
}));

// the package's types are real: an unknown path does not compile
export function neverCalled() {
  // @ts-expect-error no such operation
  return api.GET('/crms/{crmId}/no-such-path', { params: { path: { crmId } } });
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    outDir: 'dist',
    // the usage file reads process.argv: Node's types, from the service's checkout
    typeRoots: [join(ROOT, 'node_modules/@types')],
    types: ['node'],
  },
  files: ['main.ts'],
};

let t: TestApp;
let baseUrl: string;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  dir = mkdtempSync(join(tmpdir(), 'client-package-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const execFileAsync = promisify(execFile);

/** Runs a command without blocking the event loop: the service under test lives in this process. */
async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    return (await execFileAsync(command, args, { cwd, encoding: 'utf8' })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

describe.skipIf(process.env.TEST_BACKEND === 'postgres')('the typed client as a package', () => {
  it('packs built, installs the tarball in a new project, type-checks there, runs against the service', async () => {
    const packs = join(dir, 'packs');
    mkdirSync(packs);
    await run('npm', ['pack', '--pack-destination', packs, '--silent'], join(ROOT, 'clients/typescript'));
    const [tarball] = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
    const listed = await run('tar', ['-tzf', join(packs, tarball)], dir);
    expect(listed).toContain('package/dist/index.js');
    expect(listed).toContain('package/dist/index.d.ts');

    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'integrator', version: '1.0.0', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', join(packs, tarball)],
      project,
    );
    writeFileSync(join(project, 'main.ts'), USAGE);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);

    const partner = await newPartner(t);
    const reference = `${uniqueId('u')}@crm`;
    const out = await run(process.execPath, ['dist/main.js', baseUrl, partner.crmId, partner.key, reference], project);
    expect(JSON.parse(out)).toEqual({
      created: 201,
      lastName: 'Owner',
      missing: 404,
      errorCode: 'NOT_FOUND',
      verifier: 'function',
    });
  }, 240_000);
});
