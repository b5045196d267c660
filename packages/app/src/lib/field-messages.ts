// A161: the one place the API's validation `details` become sentences for people.
// The API words its details for developers, after its schema validator ("must
// have required property 'first_name'", "must match format \"email\"") and its
// tests and integrations rely on that wording, so the app translates them:
// "Enter a first name", "Enter an email like name@example.com". A message the
// rules below do not know is kept, led by the field's label.

/** Field names people know by another word. */
const LABELS: Record<string, string> = {
  contact: 'client',
  contact_id: 'client',
  property_id: 'property',
  job_id: 'job',
  quote_id: 'quote',
  paid_on: 'date',
  unitPrice: 'unit price',
  unit_price: 'unit price',
  start_date: 'date',
  end_date: 'end date',
  street1: 'street',
  street2: 'street (line 2)',
  postal_code: 'postal code',
  reply_to: 'reply-to email',
  url: 'URL',
  email: 'email',
};

/** The field a detail's path names, as people say it ("first_name" -> "first name"). */
export function fieldLabel(path: string): string {
  const last =
    path
      .split('.')
      .filter((p) => !/^\d+$/.test(p))
      .pop() ?? '';
  return LABELS[last] ?? last.replace(/_id$/, '').replace(/_/g, ' ');
}

const article = (noun: string) => (/^[aeio]/i.test(noun) ? `an ${noun}` : `a ${noun}`);
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const EXAMPLES: Record<string, string> = {
  email: 'Enter an email like name@example.com',
  uri: 'Enter a web address like https://example.com',
  url: 'Enter a web address like https://example.com',
  'date-time': 'Enter a date and time',
  date: 'Enter a date like 2026-03-31',
  time: 'Enter a time like 09:30',
  uuid: 'Choose a team member',
};

/**
 * A sentence for a person from one `details` entry of the API (`path` joined by
 * dots), short enough to stand under its field; where no field shows it, the
 * form's alert leads it with the field's label (`withLabel`).
 */
export function humanMessage(path: string, message: string): string {
  const label = fieldLabel(path) || 'value';
  const m = message.trim();
  let match: RegExpExecArray | null;
  if (/^(is required|must have required property|cannot be empty|must not be empty)/i.test(m) || /^must NOT have fewer than 1 characters?$/.test(m)) {
    return label === 'email' ? EXAMPLES.email : `Enter ${article(label)}`;
  }
  if ((match = /^must match format "([\w-]+)"$/.exec(m))) return EXAMPLES[match[1]] ?? `Enter a valid ${label}`;
  if (/^must be an absolute http or https URL/.test(m)) return EXAMPLES.url;
  if (/^must be a (calendar )?date \(YYYY-MM-DD\)/.test(m)) return EXAMPLES.date;
  if (/^must be a time \(HH:MM\)/.test(m)) return EXAMPLES.time;
  if (/^must be an ISO 8601 instant/.test(m)) return EXAMPLES['date-time'];
  if (/^must be (a )?number$/.test(m)) return `Enter a number`;
  if (/^must be integer$/.test(m)) return `Enter a whole number`;
  if (/^must have at most 2 decimals$/.test(m)) return 'Use at most 2 decimals (cents)';
  if ((match = /^must be (>=|>|<=|<) (-?[\d.]+)$/.exec(m))) {
    const n = match[2];
    const words = { '>=': `${n} or more`, '>': `more than ${n}`, '<=': `${n} or less`, '<': `less than ${n}` }[match[1] as '>=' | '>' | '<=' | '<'];
    return `Enter ${words}`;
  }
  if ((match = /^must NOT have more than (\d+) (characters|items)$/.exec(m)) || (match = /^must be at most (\d+) (characters)$/.exec(m))) {
    return `Use at most ${match[1]} ${match[2]}`;
  }
  if ((match = /^must NOT have fewer than (\d+) (characters|items)$/.exec(m))) return `Use at least ${match[1]} ${match[2]}`;
  if ((match = /^must be one of: (.+?)( \(several separated by commas\))?$/.exec(m))) return `Choose one of: ${match[1]}`;
  if (/^must be equal to one of the allowed values$/.test(m)) return 'Choose one of the options';
  if ((match = /^must be (string|boolean|object|array|null)$/.exec(m))) return `Enter a valid ${label}`;
  if (/^must match (pattern|a schema|exactly one schema)/.test(m)) return `Enter a valid ${label}`;
  if (/^(is too long)$/.test(m)) return `Shorten the ${label}`;
  if (/^must not contain U\+0000/.test(m)) return `Remove the unusual characters from the ${label}`;
  if ((match = /^must not be before (\w+)/.exec(m))) return `Make the ${label} no earlier than the ${fieldLabel(match[1])}`;
  // A service's own wording is already words: a predicate gets its field's label as
  // subject ("must be after ..."), a field named by its key gets its label instead
  // ("job_id 5 does not exist"), and a whole sentence only a capital letter.
  const key = path.split('.').pop() ?? '';
  if (key && m.startsWith(`${key} `)) return `${capital(label)}${m.slice(key.length)}`;
  if (/^(must|is|are|cannot|can't|should|does|has|applies)\b/.test(m) && path) return `${capital(label)} ${m}`;
  return capital(m);
}

/** "Street: Enter a street" reads twice: a message that names its field stands alone. */
export function withLabel(path: string, message: string): string {
  const label = fieldLabel(path);
  return !label || message.toLowerCase().includes(label.toLowerCase()) ? message : `${capital(label)}: ${message}`;
}
