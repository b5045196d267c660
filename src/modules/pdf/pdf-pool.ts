import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { scriptBeside, startThread } from '../../kernel/threads.ts';
import type { Sheet } from './pdf-sheet.ts';

// E9's PDFs are drawn off the event loop: laying out and compressing a 50-line
// invoice takes milliseconds of CPU, during which every other request of the
// process would wait. A small pool of worker threads (pdf-worker.ts) draws them;
// it starts with the first PDF, does not keep the process alive when idle, and a
// thread idle for IDLE_MS ends (its heap, pdfkit and fonts are tens of MB of the
// process's memory).
const IDLE_MS = 30_000;

interface Job {
  sheet: Sheet;
  resolve: (r: { pdf: Buffer; threadId: number }) => void;
  reject: (err: Error) => void;
}
interface Reply {
  id: number;
  pdf?: Uint8Array;
  threadId?: number;
  error?: string;
}

const WORKER = scriptBeside(import.meta.url, 'pdf-worker');
// A small young generation (startThread): a PDF's garbage is short-lived and small, and
// V8's default semi-spaces would hold tens of MB of the process's memory per thread.
// And a capped old generation (F188): V8 lets a heap grow by a fixed step over what its
// last full collection kept, less when that nears the heap's limit. Drawing 50-line
// invoices without pause, the API's process peaked 7 MB lower with a 24 MB cap than with
// none. A sheet that needs more (the largest the API accepts, 200 items with
// 5,000-character descriptions, needs about 28 MB) ends its thread with
// ERR_WORKER_OUT_OF_MEMORY and is drawn again in a thread without the cap.
const OLD_GENERATION_MB = 24;
export const YOUNG_GENERATION_MB = 4;
const startWorker = (oldGenerationMb: number | undefined): Worker =>
  startThread(WORKER, YOUNG_GENERATION_MB, { resourceLimits: oldGenerationMb ? { maxOldGenerationSizeMb: oldGenerationMb } : {} });

const settle = (job: Job, r: Reply) => {
  if (r.error !== undefined || !r.pdf) job.reject(new Error(`PDF layout failed: ${r.error}`));
  else job.resolve({ pdf: Buffer.from(r.pdf.buffer, r.pdf.byteOffset, r.pdf.byteLength), threadId: r.threadId ?? -1 });
};
const outOfMemory = (err: Error) => (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';

/** A sheet too large for a pool thread's heap, drawn in a thread of its own with no cap, which then ends. */
function drawUncapped(job: Job): void {
  const worker = startWorker(undefined);
  worker.once('message', (r: Reply) => {
    void worker.terminate();
    settle(job, r);
  });
  worker.once('error', job.reject);
  worker.once('exit', (code) => job.reject(new Error(`PDF worker exited with code ${code}`))); // a no-op once settled
  worker.postMessage({ id: 0, sheet: job.sheet });
}

export class PdfPool {
  private idle: Worker[] = [];
  private idleTimers = new Map<Worker, NodeJS.Timeout>();
  private busy = new Map<Worker, { id: number; job: Job }>();
  private queue: Job[] = [];
  private started = 0;
  private nextId = 0;

  /** One thread per core beyond the first, at least one, at most four: PDFs never take every core from the API. */
  constructor(
    private size = Math.max(1, Math.min(4, os.availableParallelism() - 1)),
    private idleMs = IDLE_MS,
    private oldGenerationMb = OLD_GENERATION_MB,
  ) {}

  /** Threads running now. */
  get threads(): number {
    return this.started;
  }

  draw(sheet: Sheet): Promise<{ pdf: Buffer; threadId: number }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ sheet, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length) {
      const worker = this.idle.pop() ?? (this.started < this.size ? this.spawn() : undefined);
      if (!worker) return;
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
      const job = this.queue.shift()!;
      const id = ++this.nextId;
      this.busy.set(worker, { id, job });
      worker.ref(); // a pending PDF keeps the process alive, an idle pool does not
      worker.postMessage({ id, sheet: job.sheet });
    }
  }

  private spawn(): Worker {
    this.started++;
    const worker = startWorker(this.oldGenerationMb);
    worker.on('message', (r: Reply) => {
      const current = this.busy.get(worker);
      if (!current || current.id !== r.id) return;
      this.busy.delete(worker);
      worker.unref();
      this.idle.push(worker);
      const timer = setTimeout(() => void worker.terminate(), this.idleMs);
      timer.unref();
      this.idleTimers.set(worker, timer);
      settle(current.job, r);
      this.pump();
    });
    // A thread that dies fails its PDF (a 500), unless its heap was too small for the
    // sheet, and is replaced by the next PDF's.
    const gone = (err: Error) => {
      const current = this.busy.get(worker);
      this.busy.delete(worker);
      this.idle = this.idle.filter((w) => w !== worker);
      this.started--;
      if (current && outOfMemory(err)) drawUncapped(current.job);
      else current?.job.reject(err);
      this.pump();
    };
    worker.on('error', gone);
    worker.on('exit', (code) => {
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
      if (this.busy.has(worker) || this.idle.includes(worker)) gone(new Error(`PDF worker exited with code ${code}`));
    });
    return worker;
  }
}

let pool: PdfPool | undefined;

/** The PDF of a sheet, drawn in a worker thread; `threadId` says which (tests: never the API's, 0). */
export function drawInPool(sheet: Sheet): Promise<{ pdf: Buffer; threadId: number }> {
  return (pool ??= new PdfPool()).draw(sheet);
}

export const drawOffThread = async (sheet: Sheet): Promise<Buffer> => (await drawInPool(sheet)).pdf;
