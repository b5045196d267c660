import type { Readable } from 'node:stream';
import chardet from 'chardet';
import { parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { ValidationError } from '../../kernel/errors.ts';

// E28: how a CSV file is read. The encoding is detected by chardet on the file's
// first bytes (F304: UTF-8, with or without its BOM, or else Windows-1252, the
// encoding spreadsheets on Windows write), decoded by iconv-lite as it streams, and
// parsed by csv-parse; the separator is the one the header line uses more of (`,` or `;`).

/** Bytes looked at to tell the encoding, the separator and the header. */
const SAMPLE_BYTES = 64 * 1024;

export interface CsvLayout {
  encoding: 'utf8' | 'win1252';
  delimiter: ',' | ';';
  header: string[];
}

async function sampleOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= SAMPLE_BYTES) break; // leaving the loop destroys the stream
  }
  return Buffer.concat(chunks).subarray(0, SAMPLE_BYTES);
}

const notCsv = (message: string) => new ValidationError([{ path: ['file'], message }]);

/** The encoding chardet sees; text it cannot be (UTF-16, binary) is refused. */
function encodingOf(sample: Buffer): CsvLayout['encoding'] {
  if (sample.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))) return 'utf8';
  const detected = chardet.detect(sample) ?? '';
  if (/^UTF-(16|32)/i.test(detected) || sample.includes(0)) throw notCsv('is not a CSV text file (save it as CSV, UTF-8 or Windows-1252)');
  return detected === 'UTF-8' || detected === 'ASCII' ? 'utf8' : 'win1252';
}

/**
 * Reads the start of the file: its encoding, separator and header. Refuses (400, naming
 * `file`) an empty file, one that is not CSV text, and one with no row below its header.
 */
export async function sniffCsv(stream: Readable): Promise<CsvLayout> {
  const sample = await sampleOf(stream);
  if (!sample.toString('latin1').trim()) throw notCsv('is empty');
  const { fileTypeFromBuffer } = await import('file-type'); // ESM-only
  const binary = await fileTypeFromBuffer(sample);
  if (binary) throw notCsv(`is a ${binary.ext} file, not CSV (save the spreadsheet as CSV)`);
  const encoding = encodingOf(sample);
  const text = iconv.decode(sample, encoding);
  const firstLine = text.split(/\r?\n/, 1)[0];
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  let rows: string[][];
  try {
    rows = parseSync(text, { delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_empty_values: true, to: 2 });
  } catch (err) {
    throw notCsv(`is not valid CSV: ${(err as Error).message}`);
  }
  const header = (rows[0] ?? []).map((h) => h.trim());
  if (!header.length || header.every((h) => !h)) throw notCsv('has no header row');
  if (rows.length < 2) throw notCsv('has no rows below its header');
  return { encoding, delimiter, header };
}

/** A data row: its cells and the line of the file it ends on (the header is line 1). */
export interface CsvRow {
  cells: string[];
  line: number;
}

/** The file's data rows, streamed (the header row skipped). */
export async function* csvRows(stream: Readable, layout: CsvLayout): AsyncGenerator<CsvRow> {
  const parser = stream.pipe(iconv.decodeStream(layout.encoding)).pipe(
    parse({
      delimiter: layout.delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      info: true,
      from: 2,
    }),
  );
  stream.once('error', (err) => parser.destroy(err)); // pipe() does not pass a source's error on
  for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) yield { cells: record, line: info.lines };
}
