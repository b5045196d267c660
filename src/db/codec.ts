import { fromJson, toJson } from './json.ts';

/**
 * Converts between API objects and rows for one table: JSON columns to text and
 * back, booleans to 0/1 and back. Only keys present in the input are written,
 * which makes the same encoder serve partial updates (SPEC convention 6).
 */
export function rowCodec<Api extends object>(spec: { json?: readonly string[]; bool?: readonly string[] }) {
  const json = new Set(spec.json ?? []);
  const bool = new Set(spec.bool ?? []);
  return {
    encode(input: Partial<Api> | Record<string, unknown>): Record<string, unknown> {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(input)) {
        if (v === undefined) continue;
        out[k] = json.has(k) ? toJson(v) : bool.has(k) ? (v === null ? null : v ? 1 : 0) : v;
      }
      return out;
    },
    decode<R extends object>(row: R): Api {
      const out: Record<string, unknown> = { ...(row as Record<string, unknown>) };
      for (const k of json) if (k in out) out[k] = fromJson(out[k] as string | null);
      for (const k of bool) if (k in out && out[k] !== null) out[k] = Boolean(out[k]);
      return out as Api;
    },
  };
}
