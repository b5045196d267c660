// pdfkit, loaded without the two modules it loads for features Fieldwork's PDFs never
// use (F181): fontkit, which reads font files to embed (the layout uses the standard
// Helvetica), and AES, which encrypts a PDF with a password (none is set). Together
// they were 13 MB of each PDF thread's memory. pdfkit requires them when it loads, so
// stand-ins that refuse are put in the CommonJS module cache first (Node documents
// adding entries to require.cache); pdfkit's own build for require is then loaded.
import Module, { createRequire } from 'node:module';
import type PDFKitDocument from 'pdfkit';

const require = createRequire(import.meta.url);
const fromPdfkit = createRequire(require.resolve('pdfkit'));

function standIn(name: string, exports: object): void {
  const file = fromPdfkit.resolve(name);
  if (require.cache[file]) return; // already loaded for real in this thread: keep it
  const module = new Module(file);
  module.filename = file;
  module.loaded = true;
  module.exports = exports;
  require.cache[file] = module;
}
const refuse = (what: string) => () => {
  throw new Error(`${what} is not loaded in Fieldwork's PDF threads (src/modules/pdf/pdfkit-standard-fonts.ts)`);
};
standIn('fontkit', { create: refuse('fontkit (font files)'), open: refuse('fontkit (font files)'), openSync: refuse('fontkit (font files)') });
standIn('@noble/ciphers/aes', { cbc: refuse('AES (encrypted PDFs)'), ecb: refuse('AES (encrypted PDFs)') });

export const PDFDocument = require('pdfkit') as typeof PDFKitDocument;
