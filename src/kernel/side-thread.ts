// A side thread (side-threads.ts, F201): runs the tasks the API's thread sends it, each
// a module whose default export takes the input and an AbortSignal. A task module loads
// once per thread, with its first use (pdfkit and the fonts' metrics for the PDFs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, threadId } from 'node:worker_threads';

// Below the API's thread in the scheduler (on Linux a priority is per thread): when
// the cores are busy, requests go first and the side work waits, instead of both slowing.
try {
  os.setPriority(5);
} catch {
  // Not permitted on this system: the thread runs at the API's priority.
}
// And in Linux's batch class (F198), where a thread that wakes never preempts the one
// running: the API's thread woke this one with every PDF it handed over and lost its
// core to it at once, 0.7 ms a PDF (its CPU profile had that time in postMessage; 0.04
// ms in this class). Node has no call for it, so util-linux's chrt sets it, once a thread.
try {
  const tid = fs.readlinkSync('/proc/thread-self').split('/').pop()!;
  execFileSync('chrt', ['--batch', '--pid', '0', tid], { stdio: 'ignore', timeout: 5_000 });
} catch {
  // Not Linux, or no chrt: the thread keeps the normal class.
}

type Task = (input: unknown, signal: AbortSignal) => unknown;
const running = new Map<number, AbortController>();

parentPort!.on('message', async (message: { id: number; task: string; input: unknown } | { stop: number }) => {
  if ('stop' in message) return running.get(message.stop)?.abort();
  const { id, task, input } = message;
  const controller = new AbortController();
  running.set(id, controller);
  try {
    const run = ((await import(task)) as { default: Task }).default;
    // Stopped while its module loaded: it never starts (its abort event has gone by).
    const output = controller.signal.aborted ? undefined : await run(input, controller.signal);
    parentPort!.postMessage({ id, output, threadId });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  } finally {
    running.delete(id);
  }
});
