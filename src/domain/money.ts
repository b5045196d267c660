// EXTENSIONS E3/E4: money is exact. Amounts travel as decimal numbers with at
// most 2 decimals, and are stored and added as integer cents; a document total
// (D7, an 8-byte float already rounded to cents) is read as cents once.

/** The cents of `amount`, or null when it has more than 2 decimals (or is not finite). */
export function toCents(amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  const cents = Math.round(amount * 100);
  // 0.1 * 100 is 10.000000000000002: compare within a tolerance far below a cent.
  return Math.abs(cents - amount * 100) < 1e-6 && Number.isSafeInteger(cents) ? cents : null;
}

export const fromCents = (cents: number): number => cents / 100;

/** A D7 total (dollars, rounded to cents) as cents. */
export const totalCents = (total: number): number => Math.round(total * 100);

/**
 * E4: the status an invoice moves to after its paid amount changed. Draft and
 * cancelled invoices take no payments; without payments an invoice that was
 * `paid` or `partially_paid` goes back to `sent`; otherwise it stays.
 */
export function statusAfterPayments(status: string, total: number, paidCents: number): string {
  if (status === 'draft' || status === 'cancelled') return status;
  const due = totalCents(total);
  if (paidCents > 0 && due > 0 && paidCents >= due) return 'paid';
  if (paidCents > 0 && paidCents < due) return 'partially_paid';
  if (paidCents === 0 && (status === 'paid' || status === 'partially_paid')) return 'sent';
  return status;
}
