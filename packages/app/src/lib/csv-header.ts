// A204: the Import page's mapping needs only a CSV file's header row, read in the
// browser before anything is sent. The separator is the API's rule (the one the first
// line uses more of, `,` or `;`); a quoted header may hold the separator, doubled
// quotes and line breaks (RFC 4180). The rows themselves are parsed by the API.

/** The header cells of a CSV text (trimmed; a UTF-8 BOM dropped). */
export function csvHeader(text: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.split(/\r?\n/, 1)[0] ?? '';
  const count = (c: string) => firstLine.split(c).length - 1;
  const separator = count(';') > count(',') ? ';' : ',';
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === separator) cells.push(cell), (cell = '');
    else if (c === '\n' || c === '\r') break;
    else cell += c;
  }
  cells.push(cell);
  return cells.map((h) => h.trim());
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
