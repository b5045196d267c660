import type { DocumentView } from '../../domain/document-view.ts';

// Customer message templates (SPEC Notifications rule 1: "Subject and body come
// from the workspace's templates"). Each type has defaults; a workspace replaces
// any part with `fieldwork workspace set templates.<type>.<part>=...`. A template
// is text with `{{placeholder}}`s; the HTML part, unless the workspace gives one,
// is the plain text escaped into paragraphs.

// A88: `hub_link_to_customer` emails a contact a fresh link to their hub's home ("Send hub link").
export const NOTIFICATION_TYPES = ['quote_to_customer', 'invoice_to_customer', 'appointment_reminder', 'hub_link_to_customer', 'quote_follow_up', 'invoice_reminder'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];
/** The types `POST /notifications` sends; E24's follow-ups and reminders go out only by themselves (F272). */
export const SENDABLE_TYPES = ['quote_to_customer', 'invoice_to_customer', 'appointment_reminder', 'hub_link_to_customer'] as const satisfies readonly NotificationType[];

export const TEMPLATE_PARTS = ['subject', 'text', 'html', 'sms'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];

// `link` (E7): a fresh customer hub link, to the document (quotes, invoices) or the hub home (appointments).
// A64: how customers reach the business (`business_address` ... `business_tax_number`), empty when unset.
const BUSINESS = ['business_name', 'business_address', 'business_phone', 'business_email', 'business_website', 'business_tax_number'] as const;
const COMMON = [...BUSINESS, 'contact_name', 'contact_first_name', 'contact_email', 'link'] as const;

/** The business placeholders of a workspace (A64), for every message it sends. */
export function businessValues(w: { name: string; address: string | null; phone: string | null; email: string | null; website: string | null; tax_number: string | null }) {
  return {
    business_name: w.name,
    business_address: w.address ?? '',
    business_phone: w.phone ?? '',
    business_email: w.email ?? '',
    business_website: w.website ?? '',
    business_tax_number: w.tax_number ?? '',
  };
}

/**
 * E10: a document's lines and totals. `line_items` is one line per item ("- name: quantity x
 * unit price = line total"); the amounts are formatted in the workspace currency, whose
 * code is `currency` (USD); `discount`, `tax` and `tax_rate` (8.25%) are empty when there is none.
 */
const PRICED = ['line_items', 'subtotal', 'discount', 'tax_rate', 'tax', 'total', 'currency'] as const;

/** The placeholders each type's templates may use; the service fills every one. */
export const PLACEHOLDERS = {
  quote_to_customer: [...COMMON, ...PRICED, 'number', 'name', 'date', 'expire_on', 'deposit', 'message', 'payment_instructions'],
  invoice_to_customer: [...COMMON, ...PRICED, 'number', 'name', 'date', 'due_date', 'amount_paid', 'balance', 'message', 'payment_instructions'],
  appointment_reminder: [...COMMON, 'name', 'date', 'time', 'when', 'address'],
  hub_link_to_customer: [...COMMON],
  // E24: the automatic follow-ups; `days_since_sent` and `days_overdue` say where in the sequence it is.
  quote_follow_up: [...COMMON, ...PRICED, 'number', 'name', 'date', 'expire_on', 'deposit', 'sent_on', 'days_since_sent'],
  invoice_reminder: [...COMMON, ...PRICED, 'number', 'name', 'date', 'due_date', 'amount_paid', 'balance', 'payment_instructions', 'days_overdue'],
} as const satisfies Record<NotificationType, readonly string[]>;

export type Placeholders<T extends NotificationType> = Record<(typeof PLACEHOLDERS)[T][number], string>;

const DEFAULTS: Record<NotificationType, Record<Exclude<TemplatePart, 'html'>, string>> = {
  quote_to_customer: {
    subject: 'Quote #{{number}} from {{business_name}}',
    text: `Hello {{contact_first_name}},

{{business_name}} has sent you quote #{{number}}.

{{name}}
Date: {{date}}
Valid until: {{expire_on}}

{{line_items}}

Subtotal: {{subtotal}}
Discount: {{discount}}
Tax ({{tax_rate}}): {{tax}}
Total: {{total}} {{currency}}
Deposit: {{deposit}}

{{message}}

{{payment_instructions}}

View and approve the quote online: {{link}}

Thank you,
{{business_name}}
{{business_address}}
{{business_phone}}
{{business_email}}
{{business_website}}
Tax no. {{business_tax_number}}`,
    sms: "{{business_name}}: we've emailed you quote #{{number}} ({{total}}). {{link}}",
  },
  invoice_to_customer: {
    subject: 'Invoice #{{number}} from {{business_name}}',
    text: `Hello {{contact_first_name}},

{{business_name}} has sent you invoice #{{number}}.

Invoice: {{name}}
Date: {{date}}
Due: {{due_date}}

{{line_items}}

Subtotal: {{subtotal}}
Discount: {{discount}}
Tax ({{tax_rate}}): {{tax}}
Total: {{total}} {{currency}}
Amount paid: {{amount_paid}}
Balance due: {{balance}} {{currency}}

{{message}}

{{payment_instructions}}

View the invoice online: {{link}}

Thank you,
{{business_name}}
{{business_address}}
{{business_phone}}
{{business_email}}
{{business_website}}
Tax no. {{business_tax_number}}`,
    sms: "{{business_name}}: we've emailed you invoice #{{number}} ({{total}}). {{link}}",
  },
  appointment_reminder: {
    subject: 'Reminder: your appointment with {{business_name}} {{when}}',
    text: `Hello {{contact_first_name}},

This is a reminder of your appointment with {{business_name}}.

{{name}}
Date: {{date}}
Time: {{time}}
Address: {{address}}

See or confirm your appointment online: {{link}}

See you soon,
{{business_name}}
{{business_address}}
{{business_phone}}
{{business_email}}
{{business_website}}
Tax no. {{business_tax_number}}`,
    sms: '{{business_name}}: reminder of your appointment {{when}}. {{link}}',
  },
  hub_link_to_customer: {
    subject: 'Your client hub at {{business_name}}',
    text: `Hello {{contact_first_name}},

{{business_name}} has sent you a link to your client hub, where you can see your quotes, invoices and appointments:

{{link}}

Thank you,
{{business_name}}
{{business_address}}
{{business_phone}}
{{business_email}}
{{business_website}}
Tax no. {{business_tax_number}}`,
    sms: '{{business_name}}: your client hub: {{link}}',
  },
  quote_follow_up: {
    subject: 'Following up: quote #{{number}} from {{business_name}}',
    text: `Hello {{contact_first_name}},

We sent you quote #{{number}} on {{sent_on}} and wanted to check whether you had any questions.

{{name}}
Total: {{total}} {{currency}}
Valid until: {{expire_on}}

View and approve the quote online: {{link}}

Thank you,
{{business_name}}
{{business_address}}
{{business_phone}}
{{business_email}}
{{business_website}}
Tax no. {{business_tax_number}}`,
    sms: '{{business_name}}: a reminder about quote #{{number}} ({{total}}). {{link}}',
  },
  invoice_reminder: {
    subject: 'Reminder: invoice #{{number}} from {{business_name}}, due {{due_date}}',
    text: `Hello {{contact_first_name}},

This is a reminder about invoice #{{number}} from {{business_name}}.

Invoice: {{name}}
Due: {{due_date}}
Days overdue: {{days_overdue}}
Total: {{total}} {{currency}}
Amount paid: {{amount_paid}}
Balance due: {{balance}} {{currency}}

{{payment_instructions}}

View and pay the invoice online: {{link}}

If you have already paid, thank you, and please ignore this reminder.

{{business_name}}
{{business_address}}
{{business_phone}}
{{business_email}}
{{business_website}}
Tax no. {{business_tax_number}}`,
    sms: '{{business_name}}: a reminder that invoice #{{number}} ({{balance}}) is due {{due_date}}. {{link}}',
  },
};

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

/** A type's default template of a part (the HTML part has none: it is made from the text). */
export const defaultTemplate = (type: NotificationType, part: Exclude<TemplatePart, 'html'>): string => DEFAULTS[type][part];

/** `workspace set templates.<type>.<part>=...`: the key names a type and part, and every placeholder exists. */
export function checkTemplate(key: string, template: string): void {
  const m = /^templates\.(\w+)\.(\w+)$/.exec(key);
  const type = m?.[1] as NotificationType | undefined;
  if (!m || !type || !NOTIFICATION_TYPES.includes(type) || !(TEMPLATE_PARTS as readonly string[]).includes(m[2])) {
    throw new Error(`${key}: templates are templates.<${NOTIFICATION_TYPES.join('|')}>.<${TEMPLATE_PARTS.join('|')}>`);
  }
  if (template.length > 20_000) throw new Error(`${key}: at most 20000 characters`);
  const known: readonly string[] = PLACEHOLDERS[type];
  for (const [, name] of template.matchAll(PLACEHOLDER)) {
    if (!known.includes(name)) throw new Error(`${key}: unknown placeholder {{${name}}}; ${type} knows ${known.map((k) => `{{${k}}}`).join(', ')}`);
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const fill = (template: string, values: Record<string, string>, encode = (s: string) => s) =>
  template.replace(PLACEHOLDER, (_, name: string) => encode(values[name] ?? ''));

/**
 * Plain text: a line whose placeholders are all empty is left out (no "Valid
 * until:" without a date), and runs of blank lines close up.
 */
function fillText(template: string, values: Record<string, string>): string {
  const lines = template.split(/\r?\n/).filter((line) => {
    const names = [...line.matchAll(PLACEHOLDER)].map((m) => m[1]);
    return !names.length || names.some((n) => values[n]);
  });
  return fill(lines.join('\n'), values)
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** One line, no control or line-separator characters: it becomes a header or an SMS. */
const oneLine = (s: string, max: number) =>
  s
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);

/** A paragraph whose every line starts with "- " (the line items) is a list. */
const paragraphHtml = (p: string) => {
  const lines = p.split('\n');
  if (lines.every((l) => l.startsWith('- '))) return `<ul>\n${lines.map((l) => `<li>${escapeHtml(l.slice(2))}</li>`).join('\n')}\n</ul>`;
  return `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`;
};

/**
 * The default HTML part; the hub `link` (our own URL, escaped like the text around it) is a link one can click.
 * A125: the workspace's logo, when it has one, heads the message (its absolute PUBLIC_URL address).
 */
function htmlOf(text: string, link: string | undefined, logo: { url: string; alt: string } | null): string {
  const linked = link ? escapeHtml(link) : '';
  let paragraphs = text.split(/\n{2,}/).map(paragraphHtml).join('\n');
  if (linked) paragraphs = paragraphs.split(linked).join(`<a href="${linked}">${linked}</a>`);
  return `<!doctype html>
<html><body style="font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; font-size: 15px; line-height: 1.5; color: #222;">
${logo ? `<p><img src="${escapeHtml(logo.url)}" alt="${escapeHtml(logo.alt)}" style="max-height: 60px; max-width: 240px;"></p>\n` : ''}${paragraphs}
</body></html>`;
}

export interface Rendered {
  subject: string;
  text: string;
  html: string;
  sms: string;
}

/** The message of `type` with `values`, from the workspace's templates (`settings`) or the defaults; `logoUrl` heads the default HTML. */
export function render(type: NotificationType, values: Record<string, string>, settings: Record<string, unknown>, logoUrl: string | null = null): Rendered {
  const own = (part: TemplatePart) => {
    const v = settings[`templates.${type}.${part}`];
    return typeof v === 'string' && v.trim() ? v : null;
  };
  const text = fillText(own('text') ?? DEFAULTS[type].text, values);
  const html = own('html');
  return {
    subject: oneLine(fill(own('subject') ?? DEFAULTS[type].subject, values), 255),
    text,
    html: html ? fill(html, values, escapeHtml) : htmlOf(text, values.link, logoUrl ? { url: logoUrl, alt: values.business_name ?? '' } : null),
    sms: oneLine(fill(own('sms') ?? DEFAULTS[type].sms, values), 640),
  };
}

/** E10: `{{line_items}}`, one line per item (the HTML part makes them a list). */
export const lineItemsText = (view: DocumentView): string =>
  view.lines.map((l) => `- ${l.name}${l.optional ? ' (optional)' : ''}: ${l.quantity} x ${l.unitPrice} = ${l.total}`).join('\n');

/** E10: the priced placeholders of a quote or invoice (PRICED). */
export const pricedValues = (view: DocumentView, currency: string) => ({
  line_items: lineItemsText(view),
  subtotal: view.subtotal,
  discount: view.discount,
  tax_rate: view.taxRate,
  tax: view.tax,
  total: view.total,
  currency: currency.toUpperCase(),
  deposit: view.deposit, // quotes only (PLACEHOLDERS)
});

