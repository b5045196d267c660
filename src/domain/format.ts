// Values as a customer reads them (emails, PDFs, hub pages): money in the
// workspace's currency, dates in words. Pure functions, no database.

/**
 * 1234.5 in `usd` -> "$1,234.50"; a code Intl has no symbol for -> "XYZ 1,234.50"; none -> "1,234.50".
 * `display: 'code'` writes the code instead of the symbol ("INR 1,234.50"), for a font without the symbol.
 */
export function formatMoney(amount: number, currency: string | null, display: 'symbol' | 'code' = 'symbol'): string {
  const f = currency ? currencyFormat(currency.toUpperCase(), display) : null;
  if (f) return f.format(amount);
  // none, or not a well-formed currency code: its text follows the amount
  const plain = PLAIN.format(amount);
  return currency ? `${plain} ${currency.toUpperCase()}` : plain;
}

// Making an Intl.NumberFormat costs far more than using one (a PDF formats hundreds of amounts).
const PLAIN = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const formats = new Map<string, Intl.NumberFormat | null>();
function currencyFormat(code: string, display: 'symbol' | 'code'): Intl.NumberFormat | null {
  const key = `${code} ${display}`;
  let f = formats.get(key);
  if (f === undefined) {
    try {
      f = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: display });
    } catch {
      f = null;
    }
    if (formats.size < 1000) formats.set(key, f); // bounded: codes come from workspace settings
  }
  return f;
}

const longDate = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

/** "2026-03-05" -> "March 5, 2026"; null -> "". */
export const formatDate = (date: string | null | undefined): string => (date ? longDate.format(new Date(`${date.slice(0, 10)}T00:00:00Z`)) : '');

/** A quantity as people write it: 2, 1.5, 0.25 (no trailing zeros, grouped thousands). */
const QUANTITY = new Intl.NumberFormat('en', { maximumFractionDigits: 4 });
export const formatQuantity = (q: number): string => QUANTITY.format(q);

// F101: the currency of a workspace that names none, from its country (ISO 3166-1
// alpha-2 -> ISO 4217, lowercase as SPEC's Workspace `currency`); any other country, or none, is usd.
const EURO = ['AT', 'BE', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK'];
const COUNTRY_CURRENCY: Record<string, string> = {
  ...Object.fromEntries(EURO.map((c) => [c, 'eur'])),
  US: 'usd',
  CA: 'cad',
  GB: 'gbp',
  AU: 'aud',
  NZ: 'nzd',
  ZA: 'zar',
  IN: 'inr',
  CH: 'chf',
  SE: 'sek',
  NO: 'nok',
  DK: 'dkk',
  PL: 'pln',
  CZ: 'czk',
  MX: 'mxn',
  BR: 'brl',
  JP: 'jpy',
  SG: 'sgd',
  HK: 'hkd',
  AE: 'aed',
};
export const DEFAULT_CURRENCY = 'usd';

/** The currency a workspace in `country` uses when it names none (F101). */
export const currencyForCountry = (country: string | null | undefined): string => (country && COUNTRY_CURRENCY[country.toUpperCase()]) || DEFAULT_CURRENCY;

/** The currency every amount of a workspace is shown in: its own, else its country's (F101). */
export const workspaceCurrency = (w: { currency: string | null; country: string | null }): string => w.currency || currencyForCountry(w.country);

/**
 * A64: how customers reach the business, as lines under its name on PDFs and hub
 * pages (the address's own lines, then phone, email, website, tax number); empty
 * fields are left out.
 */
export function businessLines(w: { address?: string | null; phone?: string | null; email?: string | null; website?: string | null; tax_number?: string | null }): string[] {
  const address = (w.address ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return [...address, w.phone, w.email, w.website, w.tax_number ? `Tax no. ${w.tax_number}` : null].filter((l): l is string => Boolean(l?.trim()));
}
