import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export class DataDirLockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite does not lock its data directory and two processes on one directory lose writes.
 * An exclusive-create lock file with our pid refuses the second process; a stale file of a
 * dead process is taken over.
 */
export function acquireDirLock(path: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(path);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        throw new DataDirLockedError(
          `The data directory is in use by process ${pid} (lock file ${path}). ` +
            `Stop that process or set DATA_DIR to another directory.`,
        );
      }
      unlinkSync(path); // stale lock of a process that is gone
    }
  }
  throw new DataDirLockedError(`Could not take the lock file ${path}`);
}
