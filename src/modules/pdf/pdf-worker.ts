// A PDF worker thread (pdf-pool.ts): draws the sheets it is sent, one at a time.
// pdfkit and the standard fonts' metrics load once, with this thread.
import os from 'node:os';
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

parentPort!.on('message', async ({ id, sheet }: { id: number; sheet: Sheet }) => {
  try {
    const pdf = await draw(sheet);
    parentPort!.postMessage({ id, pdf, threadId });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
