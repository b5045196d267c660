import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDate, formatMoney } from '../../domain/format.ts';
import { checkTemplate, render } from './templates.ts';

// SPEC Notifications rule 1 ("Subject and body come from the workspace's
// templates"): the pure rendering and formatting the notification service uses.

/** Every quote_to_customer placeholder, filled. */
const quoteValues = (extra: Record<string, string> = {}): Record<string, string> => ({
  business_name: 'Acme Lawns',
  contact_name: 'Ada Lovelace',
  contact_first_name: 'Ada',
  contact_email: 'ada@example.com',
  number: '7',
  name: 'Spring cleanup',
  total: '$1,234.50',
  date: 'March 5, 2026',
  expire_on: 'April 5, 2026',
  message: 'Thanks for asking.',
  payment_instructions: 'Cash or check.',
  line_items: '- Mowing: 2 x $500.00 = $1,000.00\n- Edging: 1 x $200.00 = $200.00',
  subtotal: '$1,200.00',
  discount: '',
  tax_rate: '2.88%',
  tax: '$34.50',
  currency: 'USD',
  deposit: '',
  ...extra,
});

const custom = (part: string, template: string) => ({ [`templates.quote_to_customer.${part}`]: template });

describe('render', () => {
  test('the default quote email: subject, and every value in the text', () => {
    const m = render('quote_to_customer', quoteValues(), {});
    assert.equal(m.subject, 'Quote #7 from Acme Lawns');
    assert.equal(
      m.text,
      [
        'Hello Ada,',
        '',
        'Acme Lawns has sent you quote #7.',
        '',
        'Spring cleanup',
        'Date: March 5, 2026',
        'Valid until: April 5, 2026',
        '',
        '- Mowing: 2 x $500.00 = $1,000.00',
        '- Edging: 1 x $200.00 = $200.00',
        '',
        'Subtotal: $1,200.00',
        'Tax (2.88%): $34.50',
        'Total: $1,234.50 USD',
        '',
        'Thanks for asking.',
        '',
        'Cash or check.',
        '',
        'Thank you,',
        'Acme Lawns',
      ].join('\n'),
    );
    assert.equal(m.sms, "Acme Lawns: we've emailed you quote #7 ($1,234.50).");
  });

  test('a line whose placeholders are all empty is dropped; the blank lines around it collapse', () => {
    const m = render('quote_to_customer', quoteValues({ name: '', expire_on: '', message: '', payment_instructions: '', line_items: '', tax: '', tax_rate: '' }), {});
    assert.doesNotMatch(m.text, /Valid until|Discount|Tax/);
    assert.doesNotMatch(m.text, /\n\n\n/, 'no run of blank lines');
    assert.equal(
      m.text,
      ['Hello Ada,', '', 'Acme Lawns has sent you quote #7.', '', 'Date: March 5, 2026', '', 'Subtotal: $1,200.00', 'Total: $1,234.50 USD', '', 'Thank you,', 'Acme Lawns'].join('\n'),
    );
  });

  test('a line keeps when one of its placeholders has a value; lines without placeholders always stay; trailing blanks go', () => {
    const template = 'Fixed line\n{{name}} / {{total}}   \n{{message}}{{payment_instructions}}\n\n\n\nEnd';
    const m = render('quote_to_customer', quoteValues({ name: '', message: '', payment_instructions: '' }), custom('text', template));
    assert.equal(m.text, 'Fixed line\n / $1,234.50\n\nEnd');
  });

  test('the subject is one line without control characters (no header injection)', () => {
    const m = render('quote_to_customer', quoteValues({ contact_name: 'Ada\r\nBcc: evil@example.com\u0000\u007f\tX' }), custom('subject', 'Hi {{contact_name}}'));
    assert.ok(![...m.subject].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), JSON.stringify(m.subject));
    assert.equal(m.subject, 'Hi Ada Bcc: evil@example.com X');
  });

  test('the subject and sms drop C1 controls and line separators too (U+0085 NEL, U+2028)', () => {
    const m = render('quote_to_customer', quoteValues({ contact_name: 'Ada\u0085Bcc: x\u009b\u2028y' }), { ...custom('subject', '{{contact_name}}'), ...custom('sms', '{{contact_name}}') });
    assert.equal(m.subject, 'Ada Bcc: x y');
    assert.equal(m.sms, 'Ada Bcc: x y');
  });

  test('the subject has at most 255 characters, the sms at most 640, both one line', () => {
    const long = 'x'.repeat(1000);
    const m = render('quote_to_customer', quoteValues({ business_name: long }), {});
    assert.equal(m.subject.length, 255);
    assert.equal(m.sms.length, 640);
    const multi = render('quote_to_customer', quoteValues({ business_name: 'Acme\nLawns\r\n' }), custom('sms', '{{business_name}}:\n\nquote {{number}}\n'));
    assert.equal(multi.sms, 'Acme Lawns : quote 7');
  });

  test('default html: the text escaped into paragraphs, <br> for single line breaks', () => {
    const m = render('quote_to_customer', quoteValues({ contact_first_name: '<b>Ada</b> & "Bob"' }), {});
    assert.match(m.text, /Hello <b>Ada<\/b> & "Bob",/, 'plain text keeps the value raw');
    assert.doesNotMatch(m.html, /<b>Ada/);
    assert.match(m.html, /<p>Hello &#60;b&#62;Ada&#60;\/b&#62; &#38; &#34;Bob&#34;,<\/p>/);
    assert.match(m.html, /<p>Spring cleanup<br>Date: March 5, 2026<br>Valid until: April 5, 2026<\/p>/);
    assert.match(m.html, /<ul>\n<li>Mowing: 2 x \$500.00 = \$1,000.00<\/li>\n<li>Edging: 1 x \$200.00 = \$200.00<\/li>\n<\/ul>/, 'the line items: a list');
    assert.match(m.html, /<p>Subtotal: \$1,200.00<br>Tax \(2.88%\): \$34.50<br>Total: \$1,234.50 USD<\/p>/);
    const escaped = render('quote_to_customer', quoteValues({ line_items: '- <i>Pipe</i> & "fittings": 1 x $1.00 = $1.00' }), {});
    assert.match(escaped.html, /<li>&#60;i&#62;Pipe&#60;\/i&#62; &#38; &#34;fittings&#34;: 1 x \$1.00 = \$1.00<\/li>/, 'item names escaped');
    assert.match(m.html, /^<!doctype html>/);
  });

  test("a workspace's html template keeps its own markup and escapes the values", () => {
    const m = render('quote_to_customer', quoteValues({ contact_first_name: `<script>alert('x')</script>` }), custom('html', '<h1>Hi {{contact_first_name}}</h1>'));
    assert.equal(m.html, '<h1>Hi &#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;</h1>');
  });

  test("a workspace's templates replace the defaults part by part; blank ones fall back", () => {
    const settings = { ...custom('subject', 'Q{{number}} for {{contact_name}}'), ...custom('text', '   ') };
    const m = render('quote_to_customer', quoteValues(), settings);
    assert.equal(m.subject, 'Q7 for Ada Lovelace');
    assert.match(m.text, /^Hello Ada,/, 'a whitespace-only text template is ignored');
    const other = render('invoice_to_customer', { number: '1', name: 'INV-1', business_name: 'Acme' }, settings);
    assert.equal(other.subject, 'Invoice #1 from Acme', "another type's template does not apply");
  });

  test('placeholders tolerate inner spaces; an unknown value renders empty', () => {
    const m = render('quote_to_customer', { number: '9' }, custom('subject', 'Quote {{ number }} {{name}}!'));
    assert.equal(m.subject, 'Quote 9 !');
  });

  test('invoice and appointment defaults', () => {
    const inv = render(
      'invoice_to_customer',
      {
        business_name: 'Acme',
        contact_first_name: 'Ada',
        number: '7',
        name: 'INV-7',
        line_items: '- Visit: 1 x $10.00 = $10.00',
        subtotal: '$10.00',
        total: '$10.00',
        currency: 'USD',
        amount_paid: '$4.00',
        balance: '$6.00',
        date: 'May 1, 2026',
        due_date: 'within 30 days',
        message: '',
        payment_instructions: '',
      },
      {},
    );
    assert.equal(inv.subject, 'Invoice #7 from Acme');
    assert.match(inv.text, /has sent you invoice #7\./, 'E1: the number');
    assert.match(inv.text, /Invoice: INV-7\nDate: May 1, 2026\nDue: within 30 days\n\n- Visit: 1 x \$10\.00 = \$10\.00\n\nSubtotal: \$10\.00\nTotal: \$10\.00 USD\nAmount paid: \$4\.00\nBalance due: \$6\.00 USD\n/);
    assert.equal(inv.sms, "Acme: we've emailed you invoice #7 ($10.00).");
    const appt = render(
      'appointment_reminder',
      { business_name: 'Acme', contact_first_name: 'Ada', name: 'Visit', date: 'May 1, 2026', time: '09:00 to 10:00', when: 'on May 1, 2026 at 09:00', address: '' },
      {},
    );
    assert.equal(appt.subject, 'Reminder: your appointment with Acme on May 1, 2026 at 09:00');
    assert.match(appt.text, /Time: 09:00 to 10:00/);
    assert.doesNotMatch(appt.text, /Address:/);
    assert.equal(appt.sms, 'Acme: reminder of your appointment on May 1, 2026 at 09:00.');
  });
});

describe('checkTemplate', () => {
  test('accepts every type and part with its own placeholders', () => {
    checkTemplate('templates.quote_to_customer.subject', 'Quote #{{number}} for {{ contact_name }}');
    checkTemplate('templates.invoice_to_customer.text', '{{name}} {{due_date}} {{total}}');
    checkTemplate('templates.appointment_reminder.sms', '{{when}} at {{address}}');
    checkTemplate('templates.quote_to_customer.html', '<p>no placeholder at all</p>');
    // E10: the lines and totals.
    checkTemplate('templates.quote_to_customer.text', '{{line_items}} {{subtotal}} {{discount}} {{tax_rate}} {{tax}} {{total}} {{currency}} {{deposit}}');
    checkTemplate('templates.invoice_to_customer.html', '<pre>{{line_items}}</pre> {{total}} {{currency}} {{amount_paid}} {{balance}}');
    assert.throws(() => checkTemplate('templates.invoice_to_customer.text', '{{deposit}}'), /unknown placeholder \{\{deposit\}\}/);
    assert.throws(() => checkTemplate('templates.appointment_reminder.text', '{{line_items}}'), /unknown placeholder \{\{line_items\}\}/);
  });

  test('refuses an unknown placeholder, naming it', () => {
    assert.throws(() => checkTemplate('templates.quote_to_customer.subject', 'Hi {{nickname}}'), /\{\{nickname\}\}/);
    // `expire_on` exists for quotes only (invoices have `number` too since E1).
    assert.throws(() => checkTemplate('templates.invoice_to_customer.subject', 'Invoice {{expire_on}}'), /unknown placeholder \{\{expire_on\}\}/);
    assert.doesNotThrow(() => checkTemplate('templates.invoice_to_customer.subject', 'Invoice #{{number}}'));
    assert.throws(() => checkTemplate('templates.quote_to_customer.text', '{{toString}}'), /\{\{toString\}\}/);
  });

  test('refuses keys that do not name a type and a part', () => {
    for (const key of ['templates.quote_to_customer.footer', 'templates.sms_blast.subject', 'templates.quote_to_customer', 'templates.quote_to_customer.subject.x', 'quote_to_customer.subject']) {
      assert.throws(() => checkTemplate(key, 'x'), (e: Error) => e.message.startsWith(`${key}:`), key);
    }
  });

  test('refuses templates over 20000 characters', () => {
    checkTemplate('templates.quote_to_customer.text', 'x'.repeat(20_000));
    assert.throws(() => checkTemplate('templates.quote_to_customer.text', 'x'.repeat(20_001)), /20000/);
  });
});

describe('formatMoney', () => {
  test('known currencies, any case', () => {
    assert.equal(formatMoney(1234.5, 'usd'), '$1,234.50');
    assert.equal(formatMoney(1234.5, 'USD'), '$1,234.50');
    assert.equal(formatMoney(1234.5, 'eur'), '€1,234.50');
    assert.equal(formatMoney(0, 'usd'), '$0.00');
  });

  test('no currency: the plain amount with two decimals', () => {
    assert.equal(formatMoney(1234.5, null), '1,234.50');
    assert.equal(formatMoney(1234.567, null), '1,234.57');
    assert.equal(formatMoney(1234.5, ''), '1,234.50');
  });

  test('a code Intl refuses: the plain amount followed by the code', () => {
    assert.equal(formatMoney(1234.5, 'dollars'), '1,234.50 DOLLARS');
  });

  test('a well-formed code without a symbol reads as Intl writes it: the code, then the amount', () => {
    assert.equal(formatMoney(1234.5, 'xyz'), 'XYZ\u00a01,234.50'); // a no-break space, as Intl writes it
  });
});

describe('formatDate', () => {
  test('a date or timestamp reads as a long English date, whatever the local zone', () => {
    assert.equal(formatDate('2026-03-05'), 'March 5, 2026');
    assert.equal(formatDate('2026-12-31T23:59:59.000Z'), 'December 31, 2026');
    assert.equal(formatDate('2024-02-29'), 'February 29, 2024');
  });

  test('nothing gives an empty string', () => {
    assert.equal(formatDate(null), '');
    assert.equal(formatDate(undefined), '');
    assert.equal(formatDate(''), '');
  });
});
