import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { scriptBeside, startThread } from './threads.ts';

// The API's work that must not run on its event loop runs in side threads
// (side-thread.ts), one pool per process (F201): the PDF module's drawing (jobs, one at
// a time per thread) and SQLite's checkpoints (a standing task, beside the jobs). One
// pool, because each Node thread costs the process about 10 MB on its own: a thread
// for each kind of work held both while PDFs were drawn after writes, and the process
// passed 150 MB. The pool starts a thread when work comes, does not keep the process
// alive when idle, and a thread with nothing to do for IDLE_MS ends.
const IDLE_MS = 30_000;
const SCRIPT = scriptBeside(import.meta.url, 'side-thread');

// A small young generation (startThread): a task's garbage is short-lived and small, and
// V8's default semi-spaces would hold tens of MB of the process's memory per thread.
// And a capped old generation (F188): V8 lets a heap grow by a fixed step over what its
// last full collection kept, less when that nears the heap's limit. Drawing 50-line
// invoices without pause, the API's process peaked 7 MB lower with a 24 MB cap than with
// none. A job that needs more (the largest sheet the API accepts, 200 items with
// 5,000-character descriptions, needs about 28 MB) ends its thread with
// ERR_WORKER_OUT_OF_MEMORY and runs again in a thread without the cap.
const OLD_GENERATION_MB = 24;
export const YOUNG_GENERATION_MB = 4;
const startWorker = (oldGenerationMb: number | undefined): Worker =>
  startThread(SCRIPT, YOUNG_GENERATION_MB, { resourceLimits: oldGenerationMb ? { maxOldGenerationSizeMb: oldGenerationMb } : {} });

/** A task: a module whose default export takes the input (and an AbortSignal) in the side thread and returns the output. */
interface Work {
  task: URL;
  input: unknown;
  resolve: (r: { output: unknown; threadId: number }) => void;
  reject: (err: Error) => void;
}
interface Reply {
  id: number;
  output?: unknown;
  threadId?: number;
  error?: string;
}

/** The task itself threw (as opposed to its thread ending under it). */
export class TaskError extends Error {}

const settle = (work: Work, r: Reply) => {
  if (r.error !== undefined) work.reject(new TaskError(r.error));
  else work.resolve({ output: r.output, threadId: r.threadId ?? -1 });
};
const outOfMemory = (err: Error) => (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
const post = (worker: Worker, id: number, work: Work) => worker.postMessage({ id, task: work.task.href, input: work.input });

/** A job too large for a pool thread's heap, run in a thread of its own with no cap, which then ends. */
function runUncapped(work: Work): void {
  const worker = startWorker(undefined);
  worker.once('message', (r: Reply) => {
    void worker.terminate();
    settle(work, r);
  });
  worker.once('error', work.reject);
  worker.once('exit', (code) => work.reject(new Error(`side thread exited with code ${code}`))); // a no-op once settled
  post(worker, 0, work);
}

/** What a thread is doing: its job (at most one) and its standing tasks. */
interface Thread {
  worker: Worker;
  job: { id: number; work: Work } | null;
  standing: Map<number, Work>;
  idleTimer?: NodeJS.Timeout;
}

/** A standing task: runs until it returns (`done` then resolves) or is stopped. */
export interface Standing {
  done: Promise<void>;
  stop(): void;
}

export class SideThreads {
  private threadsNow: Thread[] = [];
  private queue: Work[] = [];
  private nextId = 0;

  /** One thread per core beyond the first, at least one, at most four: jobs never take every core from the API. */
  constructor(
    private size = Math.max(1, Math.min(4, os.availableParallelism() - 1)),
    private idleMs = IDLE_MS,
    private oldGenerationMb = OLD_GENERATION_MB,
  ) {}

  /** Threads running now. */
  get threads(): number {
    return this.threadsNow.length;
  }

  /** Runs `task` on `input` in a side thread, queued until one has no job. */
  run<T>(task: URL, input: unknown): Promise<{ output: T; threadId: number }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, input, resolve: resolve as Work['resolve'], reject });
      this.pump();
    });
  }

  /**
   * Runs `task` beside the jobs of a side thread (the first, started if none runs) until
   * it returns; `stop()` aborts its signal. `done` rejects with a TaskError when the task
   * throws, with another error when its thread ends first.
   */
  stand(task: URL, input: unknown): Standing {
    const id = ++this.nextId;
    const thread = this.threadsNow[0] ?? this.spawn();
    let work!: Work;
    const done = new Promise<void>((resolve, reject) => {
      work = { task, input, resolve: () => resolve(), reject };
    });
    this.busy(thread);
    thread.standing.set(id, work);
    post(thread.worker, id, work);
    const stop = () => {
      if (!thread.standing.has(id)) return;
      thread.worker.ref(); // until the task has ended: whoever stops it may be waiting for that
      thread.worker.postMessage({ stop: id });
    };
    return { done, stop };
  }

  private pump(): void {
    while (this.queue.length) {
      const thread = this.threadsNow.find((t) => !t.job) ?? (this.threadsNow.length < this.size ? this.spawn() : undefined);
      if (!thread) return;
      const work = this.queue.shift()!;
      const id = ++this.nextId;
      this.busy(thread);
      thread.job = { id, work };
      thread.worker.ref(); // a pending job keeps the process alive; a standing task (until stopped) and an idle pool do not
      post(thread.worker, id, work);
    }
  }

  private busy(thread: Thread): void {
    clearTimeout(thread.idleTimer);
    thread.idleTimer = undefined;
  }

  /** A thread with no job and no standing task ends after idleMs, unless given work meanwhile. */
  private idleUnlessWorking(thread: Thread): void {
    if (thread.job || thread.standing.size > 0) return;
    thread.idleTimer = setTimeout(() => {
      // Out of the pool before it ends: work that comes meanwhile starts another thread.
      this.threadsNow = this.threadsNow.filter((t) => t !== thread);
      void thread.worker.terminate();
    }, this.idleMs);
    thread.idleTimer.unref();
  }

  private spawn(): Thread {
    const worker = startWorker(this.oldGenerationMb);
    worker.unref();
    const thread: Thread = { worker, job: null, standing: new Map() };
    this.threadsNow.push(thread);
    worker.on('message', (r: Reply) => {
      if (thread.job?.id === r.id) {
        const { work } = thread.job;
        thread.job = null;
        worker.unref();
        settle(work, r);
      } else {
        const work = thread.standing.get(r.id);
        if (!work) return;
        thread.standing.delete(r.id);
        if (!thread.job) worker.unref();
        settle(work, r);
      }
      this.idleUnlessWorking(thread);
      this.pump();
    });
    // A thread that dies fails its job (a 500 for a PDF) and its standing tasks, unless its
    // heap was too small for the job, which runs again; the next work starts another thread.
    const gone = (err: Error) => {
      if (!this.threadsNow.includes(thread)) return;
      this.threadsNow = this.threadsNow.filter((t) => t !== thread);
      clearTimeout(thread.idleTimer);
      const { job, standing } = thread;
      thread.job = null;
      thread.standing = new Map();
      if (job && outOfMemory(err)) runUncapped(job.work);
      else job?.work.reject(err);
      for (const work of standing.values()) work.reject(err);
      this.pump();
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`side thread exited with code ${code}`)));
    return thread;
  }
}

let shared: SideThreads | undefined;

/** The process's side threads, created with their first use. */
export const sideThreads = (): SideThreads => (shared ??= new SideThreads());
