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

// A page's content stream is kept as text until the page is written (F187). pdfkit
// turns every operator it adds ("BT", "1 0 0 1 50 700 Tm", each run of glyphs) into a
// Uint8Array of its own, and a document keeps its pages until it ends ("Page n of m"):
// thousands of small arrays, each copied again by every young-generation collection
// while the PDF is drawn (under npm start's 4 MB young generation, 1.3 ms of a 50-line
// invoice's CPU). Here a page's operators are joined as text and encoded once, byte for
// byte as pdfkit encodes them (each character's low byte).
const pendingText = Symbol('pending text');
interface Reference {
  buffer: Uint8Array[];
  uncompressedLength: number;
  compress: boolean;
  data: { Length?: number; Filter?: string };
  write(chunk: unknown): void;
  finalize(): void;
  [pendingText]?: string;
}
const references = Object.getPrototypeOf(new PDFDocument({ font: null } as object).ref({})) as Reference;
const { write: writeBytes, finalize } = references;
const encodePending = (ref: Reference) => {
  const text = ref[pendingText];
  if (text === undefined) return;
  ref[pendingText] = undefined;
  ref.buffer.push(Buffer.from(text, 'latin1'));
};
references.write = function (this: Reference, chunk: unknown) {
  if (chunk instanceof Uint8Array) {
    encodePending(this);
    return writeBytes.call(this, chunk);
  }
  const line = `${chunk}\n`;
  this[pendingText] = (this[pendingText] ?? '') + line;
  this.uncompressedLength += line.length;
  this.data.Length = (this.data.Length ?? 0) + line.length;
  if (this.compress) this.data.Filter = 'FlateDecode';
};
references.finalize = function (this: Reference) {
  encodePending(this);
  return finalize.call(this);
};
