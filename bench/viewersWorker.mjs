// Entry of RUSH's viewer thread (bench/viewers.ts): a worker loads TypeScript through tsx's API.
import { tsImport } from 'tsx/esm/api';

const { runViewerThread } = await tsImport('./viewers.ts', import.meta.url);
await runViewerThread();
