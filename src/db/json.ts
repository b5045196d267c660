// JSON columns are text in SQLite and jsonb in PostgreSQL; the pg pool returns jsonb
// as text (database.ts), so this is the one place both are read and written.

export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function fromJson<T = unknown>(text: string | null | undefined): T | null {
  return text === null || text === undefined ? null : (JSON.parse(text) as T);
}

/** Booleans are 0/1 integers on both dialects (better-sqlite3 cannot bind booleans). */
export const fromBool = (v: number | boolean | null): boolean => Boolean(v);

export const now = (): string => new Date().toISOString();
