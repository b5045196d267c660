// A204: the Import page's mapping needs only a CSV file's header row, read in the
// browser before anything is sent, by csv-parse (the parser the API reads the rows
// with, in its browser build). The separator is the API's rule: the one the first
// line uses more of, `,` or `;`.
import { parse } from 'csv-parse/browser/esm/sync';

/** The header cells of a CSV text (trimmed; a UTF-8 BOM dropped). */
export function csvHeader(text: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.split(/\r?\n/, 1)[0] ?? '';
  const count = (c: string) => firstLine.split(c).length - 1;
  const [header] = parse(body, { delimiter: count(';') > count(',') ? ';' : ',', to: 1, relax_column_count: true, trim: true }) as string[][];
  return header ?? [];
}

/** The header of a CSV file: its start decoded as the API decodes it (UTF-8, else Windows-1252). */
export async function csvFileHeader(file: File): Promise<string[]> {
  const start = await file.slice(0, 64 * 1024).arrayBuffer();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(start);
  } catch {
    text = new TextDecoder('windows-1252').decode(start);
  }
  return csvHeader(text);
}
