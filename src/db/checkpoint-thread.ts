// SQLite's checkpoints, in a thread of their own (src/db/checkpoints.ts, F200): every
// EVERY_MS a passive checkpoint copies the pages the API's writes appended to the WAL
// into the database file, without waiting for any reader or writer. Ends after
// `idleMs` in which the WAL took no new page; the API starts it again at its next write.
import SQLite from 'better-sqlite3';
import { workerData } from 'node:worker_threads';

const EVERY_MS = 20;
const { file, idleMs } = workerData as { file: string; idleMs: number };
const db = new SQLite(file);
let frames = -1;
let changedAt = Date.now();
const timer = setInterval(() => {
  // log: the WAL's frames (pages) since it last started over; checkpointed: those copied.
  const [wal] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
  const now = Date.now();
  if (wal!.log !== frames) {
    frames = wal!.log;
    changedAt = now;
  } else if (now - changedAt >= idleMs) {
    clearInterval(timer);
    db.close(); // nothing else holds the thread's event loop: it ends
  }
}, EVERY_MS);
