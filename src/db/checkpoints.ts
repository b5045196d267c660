import type SQLite from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import { scriptBeside, startThread } from '../kernel/threads.ts';

// SQLite in WAL mode appends each commit's pages to the WAL, and by default the commit
// that takes the WAL past 1,000 pages copies them back into the database file, on the
// API's thread: 5-6 ms every ~47 contacts created (a contact, its outbox row and their
// indexes are ~21 pages), a quarter of the write path's time, and the tail of every
// write's latency. So while the API writes, a thread of its own does the copying
// (checkpoint-thread.ts); the writer's own checkpoint stays as a backstop at
// BACKSTOP_PAGES, for a WAL the thread could not keep up with.
const BACKSTOP_PAGES = 10_000;
const SQLITE_DEFAULT_PAGES = 1_000;
const IDLE_MS = 5_000;
const SCRIPT = scriptBeside(import.meta.url, 'checkpoint-thread');

/** The checkpoint thread of one database file, started by a write when not running (F200). */
export class CheckpointThread {
  private thread: Worker | null = null;
  private closed = false;
  /** The thread failed (its script or the file gone): SQLite's own checkpoints from then on, no thread per write. */
  private failed = false;

  constructor(
    private readonly file: string,
    private readonly writer: SQLite.Database,
    private readonly idleMs = IDLE_MS,
  ) {}

  get running(): boolean {
    return this.thread !== null;
  }

  /** A write is about to run: the thread runs from now until the WAL has been still for idleMs. */
  wake(): void {
    if (this.thread || this.closed || this.failed) return;
    this.writer.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    // A 1 MB young generation: the thread allocates a few objects per checkpoint.
    const thread = startThread(SCRIPT, 1, { workerData: { file: this.file, idleMs: this.idleMs } });
    thread.unref(); // it never keeps the process alive
    const ended = () => {
      if (this.thread !== thread) return;
      this.thread = null;
      if (!this.closed) this.writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
    };
    thread.once('exit', ended);
    // The thread failing (the file gone) leaves the writer's own checkpoints, as without it.
    thread.once('error', (err) => {
      console.error(`SQLite checkpoint thread: ${err.message}`);
      this.failed = true;
      ended();
    });
    this.thread = thread;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.thread?.terminate();
    this.thread = null;
  }
}
