/**
 * F256: the values of an `in (...)` list, padded to the next power of two by repeating
 * the last one (the same rows match). A statement over a list of any length then has one
 * of a few texts instead of one per length: each text is a statement prepared and kept
 * (SQLite's statement cache holds 500, PostgreSQL's named statements 1,000), and the
 * worker's batches of 1 to 500 rows had filled SQLite's cache with near-copies
 * (bench/RESULTS.md, the soak).
 */
export function inList<T>(values: readonly T[]): T[] {
  const out = values.slice();
  if (out.length < 2) return out;
  const size = 2 ** Math.ceil(Math.log2(out.length));
  while (out.length < size) out.push(out[out.length - 1]);
  return out;
}
