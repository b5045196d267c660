// The PDF module's side-thread task (src/kernel/side-threads.ts): draws the sheet it is
// given. pdfkit and the standard fonts' metrics load once per thread, with its first PDF.
import { draw } from './pdf-layout.ts';
import type { Sheet } from './pdf-sheet.ts';

export default (sheet: Sheet): Promise<Buffer> => draw(sheet);
