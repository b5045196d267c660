// SQLite's checkpoints, a standing task of a side thread (src/db/checkpoints.ts, F200,
// F201): every EVERY_MS a passive checkpoint copies the pages the API's writes appended
// to the WAL into the database file, without waiting for any reader or writer. Returns
// after `idleMs` in which the WAL took no new page, or when stopped; the API starts it
// again at its next write.
import { SQLite } from './sqlite-driver.ts';

const EVERY_MS = 20;

export default function checkpointWhileWriting({ file, idleMs }: { file: string; idleMs: number }, signal: AbortSignal): Promise<void> {
  const db = new SQLite(file);
  let frames = -1;
  let changedAt = Date.now();
  return new Promise((resolve) => {
    const end = () => {
      clearInterval(timer);
      db.close();
      resolve();
    };
    const timer = setInterval(() => {
      // log: the WAL's frames (pages) since it last started over; checkpointed: those copied.
      const [wal] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      const now = Date.now();
      if (wal!.log !== frames) {
        frames = wal!.log;
        changedAt = now;
      } else if (now - changedAt >= idleMs) {
        signal.removeEventListener('abort', end);
        end();
      }
    }, EVERY_MS);
    signal.addEventListener('abort', end, { once: true });
  });
}
