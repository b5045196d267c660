import { Type } from 'typebox';

/**
 * `YYYY-MM-DD` that is a real calendar day (ajv-formats `date` checks month
 * lengths and leap years; the pattern alone would let 2025-02-30 through).
 */
export const CalendarDate = Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 });
