// A163: time zones, currencies and countries are chosen from lists, not typed.
// The lists are the browser's own (Intl), so they follow the IANA and ISO data the
// server's Intl checks against; the value a workspace already has is always kept
// among the options, known to the browser or not.

export interface Option {
  value: string;
  label: string;
}

const supported = (key: 'timeZone' | 'currency'): string[] => {
  try {
    return Intl.supportedValuesOf(key);
  } catch {
    return [];
  }
};

/** The browser's time zone (IANA), or null when it says none. */
export function browserTimeZone(): string | null {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
}

const withCurrent = (options: Option[], current: string | null | undefined, label = (v: string) => v): Option[] =>
  current && !options.some((o) => o.value === current) ? [{ value: current, label: label(current) }, ...options] : options;

let zones: Option[] | undefined;
/** Every IANA time zone the browser knows, UTC first: "America/Chicago". */
export function timeZoneOptions(current?: string | null): Option[] {
  zones ??= ['UTC', ...supported('timeZone').filter((z) => z !== 'UTC')].map((z) => ({ value: z, label: z.replaceAll('_', ' ') }));
  return withCurrent(zones, current);
}

let currencies: Option[] | undefined;
/** ISO 4217 currencies, by code with their names: "USD – US Dollar". The API keeps them lower-case. */
export function currencyOptions(current?: string | null): Option[] {
  const names = new Intl.DisplayNames(['en'], { type: 'currency' });
  currencies ??= supported('currency').map((code) => ({ value: code.toLowerCase(), label: `${code} – ${names.of(code) ?? code}` }));
  return withCurrent(currencies, current?.toLowerCase(), (v) => v.toUpperCase());
}

// Region codes DisplayNames knows that are no country (the EU, the UN, "unknown", pseudo-regions).
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'QO', 'XA', 'XB', 'AC', 'CP', 'DG', 'EA', 'IC', 'TA', 'CQ']);
let countries: Option[] | undefined;
/** ISO 3166 two-letter countries by name: "United States (US)". */
export function countryOptions(current?: string | null): Option[] {
  if (!countries) {
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    const out: Option[] = [];
    for (let a = 65; a <= 90; a++)
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        const name = NOT_COUNTRIES.has(code) ? undefined : names.of(code);
        if (name && name !== code) out.push({ value: code, label: `${name} (${code})` });
      }
    countries = out.sort((x, y) => x.label.localeCompare(y.label));
  }
  return withCurrent(countries, current?.toUpperCase());
}
