// Copies what the compiled service reads besides its JavaScript into dist/: the SQL migrations and
// the repeatable SQL definitions that live beside the TypeScript calling them.
import { cpSync } from 'node:fs';

cpSync('src', 'dist', { recursive: true, filter: (path) => !/\.ts$/.test(path) });
