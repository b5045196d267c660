// A PDF worker thread (pdf-pool.ts): draws the sheets it is sent, one at a time.
// pdfkit and the standard fonts' metrics load once, with this thread.
import os from 'node:os';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { parentPort, threadId } from 'node:worker_threads';
import { draw } from './pdf-layout.ts';
import type { Sheet } from './pdf-sheet.ts';

// Below the API's thread in the scheduler (on Linux a priority is per thread): when
// the cores are busy, requests go first and PDFs wait, instead of both slowing.
try {
  os.setPriority(5);
} catch {
  // Not permitted on this system: PDFs then run at the API's priority.
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

parentPort!.on('message', async ({ id, sheet }: { id: number; sheet: Sheet }) => {
  try {
    const pdf = await draw(sheet);
    parentPort!.postMessage({ id, pdf, threadId });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
