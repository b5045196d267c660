import { type SideThreads, sideThreads } from '../../kernel/side-threads.ts';
import { scriptBeside } from '../../kernel/threads.ts';
import type { Sheet } from './pdf-sheet.ts';

// E9's PDFs are drawn off the event loop: laying out and compressing a 50-line invoice
// takes milliseconds of CPU, during which every other request of the process would
// wait. The process's side threads (src/kernel/side-threads.ts) draw them (pdf-task.ts).
const TASK = scriptBeside(import.meta.url, 'pdf-task');

/** The PDF of a sheet, drawn in a side thread (the process's, or `threads`'); `threadId` says which (tests: never the API's, 0). */
export async function drawInPool(sheet: Sheet, threads: SideThreads = sideThreads()): Promise<{ pdf: Buffer; threadId: number }> {
  const { output, threadId } = await threads.run<Uint8Array>(TASK, sheet);
  return { pdf: Buffer.from(output.buffer, output.byteOffset, output.byteLength), threadId };
}

export const drawOffThread = async (sheet: Sheet): Promise<Buffer> => (await drawInPool(sheet)).pdf;
