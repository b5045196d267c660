import { CSV_IDS_PATTERN, DATE_PATTERN, TIME_PATTERN } from './schemas.ts';

export type PathSegment = string | number;
export interface Detail {
  path: PathSegment[];
  message: string;
}

/** The one error type. Services throw it; the error handler renders the SPEC envelope. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Detail[],
  ) {
    super(message);
  }
}

/**
 * A body that fails a rule: the text and status come from the route (D4), so a
 * service throws the same error whether it runs for contacts (422) or quotes (400).
 */
export class ValidationError extends AppError {
  constructor(details: Detail[]) {
    super(400, 'Invalid request', details);
  }
}

export const notFound = (resource: string) => new AppError(404, `${resource} not found`);
export const invalidField = (path: PathSegment[], message: string) => new ValidationError([{ path, message }]);
export const conflict = (message: string) => new AppError(409, message);

/** What ajv reports for a failed validation. */
export interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

// Issue 25: a pattern is no message for a person. The date, time and list-filter
// schemas (kernel/schemas.ts, domain/dates.ts) are named by what they accept.
const CSV_OF = /^\^\(([\w|-]+)\)\(,\(\1\)\)\*\$$/;
function patternMessage(pattern: unknown): string | null {
  if (pattern === DATE_PATTERN || pattern === '^\\d{4}-\\d{2}-\\d{2}$') return 'must be a date (YYYY-MM-DD)';
  if (pattern === TIME_PATTERN) return 'must be a time (HH:MM)';
  if (pattern === CSV_IDS_PATTERN) return 'must be ids from 1 to 2147483647, separated by commas';
  const csv = typeof pattern === 'string' ? CSV_OF.exec(pattern) : null;
  return csv ? `must be one of: ${csv[1].split('|').join(', ')} (several separated by commas)` : null;
}

/** Ajv's `/a/0/b` + missing property -> ['a', 0, 'b', 'c']. */
export function ajvDetails(errors: AjvError[]): Detail[] {
  return errors.map((e) => {
    const path: PathSegment[] = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    if (e.keyword === 'required' && typeof e.params.missingProperty === 'string') path.push(e.params.missingProperty);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) message = `must be one of: ${e.params.allowedValues.join(', ')}`;
    if (e.keyword === 'pattern') message = patternMessage(e.params.pattern) ?? message;
    if (e.keyword === 'format' && e.params.format === 'date') message = 'must be a date (YYYY-MM-DD)';
    if (e.keyword === 'format' && e.params.format === 'date-time') message = 'must be an ISO 8601 instant with Z or an offset, e.g. 2026-01-01T00:00:00Z';
    return { path, message };
  });
}

/** The text of any thrown value, without its stack. */
export function messageOf(err: unknown): string {
  // A service's validation error (shared with the API) names its fields in its details.
  if (err instanceof AppError && err.details?.length) return err.details.map((d) => `${d.path.join('.')} ${d.message}`.trim()).join('; ');
  if (err instanceof AggregateError && !err.message) return err.errors.map(messageOf).join('; ') || 'unknown error';
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return err.message || (typeof code === 'string' ? code : err.name);
  }
  return String(err);
}
