import type { SQLiteDatabase } from './sqlite-driver.ts';
import { type Standing, sideThreads, TaskError } from '../kernel/side-threads.ts';
import { scriptBeside } from '../kernel/threads.ts';

// SQLite in WAL mode appends each commit's pages to the WAL, and by default the commit
// that takes the WAL past 1,000 pages copies them back into the database file, on the
// API's thread: 5-6 ms every ~47 contacts created (a contact, its outbox row and their
// indexes are ~21 pages), a quarter of the write path's time, and the tail of every
// write's latency. So while the API writes, a task in a side thread does the copying
// (checkpoint-task.ts, F201); the writer's own checkpoint stays as a backstop at
// BACKSTOP_PAGES, for a WAL the task could not keep up with.
const BACKSTOP_PAGES = 10_000;
const SQLITE_DEFAULT_PAGES = 1_000;
const IDLE_MS = 5_000;
const TASK = scriptBeside(import.meta.url, 'checkpoint-task');

/** The checkpoints of one database file off the API's thread, started by a write when not running (F200). */
export class Checkpoints {
  private task: Standing | null = null;
  private closed = false;
  /** The task failed (the file gone): SQLite's own checkpoints from then on, not a new task per write. */
  private failed = false;

  constructor(
    private readonly file: string,
    private readonly writer: SQLiteDatabase,
    private readonly idleMs = IDLE_MS,
  ) {}

  get running(): boolean {
    return this.task !== null;
  }

  /** A write is about to run: the task runs from now until the WAL has been still for idleMs. */
  wake(): void {
    if (this.task || this.closed || this.failed) return;
    this.writer.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    const task = sideThreads().stand(TASK, { file: this.file, idleMs: this.idleMs });
    this.task = task;
    task.done.then(
      () => this.ended(task),
      (err: Error) => {
        console.error(`SQLite checkpoints: ${err.message}`);
        // The task itself failing (the file gone) would fail again: the writer's own
        // checkpoints from then on, as without it. Its thread ending under it (a PDF that
        // ran out of memory) leaves it to the next write to start it again.
        if (err instanceof TaskError) this.failed = true;
        this.ended(task);
      },
    );
  }

  private ended(task: Standing): void {
    if (this.task !== task) return;
    this.task = null;
    if (!this.closed) this.writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
  }

  /** Stops the task (its connection closes) and waits for it. */
  async close(): Promise<void> {
    this.closed = true;
    const task = this.task;
    task?.stop();
    await task?.done.catch(() => {});
    this.task = null;
  }
}
