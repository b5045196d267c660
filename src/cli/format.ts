// Readable (non --json) output: aligned `key: value` lines and small tables.

/** null -> "-", arrays -> "a, b", objects -> JSON, the rest as text. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length ? value.map(cell).join(', ') : '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `key: value` lines with the values aligned. */
export function fields(record: Record<string, unknown>, indent = ''): string {
  const keys = Object.keys(record);
  const width = Math.max(0, ...keys.map((k) => k.length)) + 1;
  return keys.map((k) => `${indent}${`${k}:`.padEnd(width)} ${cell(record[k])}`).join('\n');
}

/** A header row and aligned columns, two spaces apart; no trailing blanks. */
export function table(headers: string[], rows: unknown[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(cell))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (c ?? '').padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A titled block of `key: value` lines. */
export const section = (title: string, record: Record<string, unknown>) => `${title}\n${fields(record, '  ')}`;
