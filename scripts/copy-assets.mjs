// Copies what the compiled service reads besides its JavaScript (the SQL migrations) into dist/.
import { cpSync } from 'node:fs';

cpSync('src/storage/migrations', 'dist/storage/migrations', { recursive: true });
