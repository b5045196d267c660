// Issue 20, the client's side of the office in a real browser, checked through
// the API: custom fields in the client form (D23) with the API's error by its
// field, a quote started from a template (A87), line items reordered by dragging
// and by keyboard, a file dropped on a record, Send hub link (A88), upcoming
// visits on the client's page (A89), and a member's client and job pages
// without what the role cannot do, which the API refuses too (A90); an API error on
// a field the form has no input for, spelled out in its alert (A129).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { waitFor } from '../../../test/webhook-receiver.ts';
import { checkPage, type Harness, type Person, skipBrowser, startHarness } from './harness.ts';

describe('clients, templates, files and roles (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let manager: Person;
  const get = async <T,>(url: string): Promise<T> => (await h.call(ws.token, 'GET', url)).data as T;
  const post = async <T,>(url: string, body: object): Promise<T> => (await h.call(ws.token, 'POST', url, body)).data as T;
  const pathId = (page: Page, prefix: string) => Number(new URL(page.url()).pathname.slice(prefix.length).split('/')[0]);

  before(async () => {
    h = await startHarness({ mail: true });
    ws = await h.workspace('Greenleaf Clients');
    manager = await h.person(ws.id, 'manager');
  });
  after(() => h?.close());

  test('custom fields in the client form: types, options, required marks, the API error by its field', async () => {
    await post('/api/v1/custom-fields', { module_type: 'contact', key: 'gate_code', label: 'Gate code', type: 'text', required: true });
    await post('/api/v1/custom-fields', { module_type: 'contact', key: 'dogs', label: 'Dogs', type: 'number' });
    await post('/api/v1/custom-fields', { module_type: 'contact', key: 'source', label: 'Source', type: 'select', options: ['Web', 'Referral'] });
    const { context, page } = await h.page(375);
    await h.signIn(page, manager, '/app/sign-in?next=%2Fclients%2Fnew');
    await checkPage(page, 'New client');
    const gate = page.getByRole('textbox', { name: 'Gate code' });
    assert.equal(await gate.getAttribute('required'), '', 'the required mark');
    await page.getByLabel('First name').fill('Fiona');
    await page.getByLabel('Last name').fill('Fields');
    await page.getByRole('textbox', { name: 'Dogs' }).fill('2');
    await page.getByRole('combobox', { name: 'Source' }).click();
    await page.getByRole('option', { name: 'Referral' }).click();

    // The required field left empty: the API's "is required", in words (A161), next to it, nothing created, what was typed kept.
    await page.getByRole('button', { name: 'Save client' }).click();
    await page.getByRole('alert').filter({ hasText: 'Check the highlighted fields.' }).waitFor();
    assert.equal(await gate.getAttribute('aria-invalid'), 'true');
    const describedBy = (await gate.getAttribute('aria-describedby')) ?? '';
    const described = await Promise.all(describedBy.split(' ').filter(Boolean).map((id) => page.locator(`[id="${id}"]`).textContent()));
    assert.ok(described.some((t) => t?.includes('Enter a gate code')), `described by the API's error: ${described.join(' | ')}`);
    assert.equal(await page.getByRole('textbox', { name: 'Dogs' }).inputValue(), '2');
    assert.equal(await page.getByLabel('First name').inputValue(), 'Fiona');
    assert.deepEqual(await get<unknown[]>('/api/v1/contacts?search=Fiona'), []);

    // A number the API refuses: its message by the field.
    await page.getByRole('textbox', { name: 'Dogs' }).fill('two');
    await gate.fill('1234#');
    await page.getByRole('button', { name: 'Save client' }).click();
    await page.getByText('Enter a number').waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Dogs' }).getAttribute('aria-invalid'), 'true');

    await page.getByRole('textbox', { name: 'Dogs' }).fill('2');
    await page.getByRole('button', { name: 'Save client' }).click();
    await page.waitForURL(/\/app\/clients\/\d+$/);
    await checkPage(page, 'Fiona Fields');
    const id = pathId(page, '/app/clients/');
    const contact = await get<{ custom_fields: unknown }>(`/api/v1/contacts/${id}`);
    assert.deepEqual(contact.custom_fields, { gate_code: '1234#', dogs: 2, source: 'Referral' });
    await page.getByTestId('custom-field-values').getByText('Gate code:').waitFor();
    await page.getByTestId('custom-field-values').getByText('Referral').waitFor();

    // Edit keeps them and clears an optional one.
    await page.getByRole('link', { name: 'Edit' }).click();
    await checkPage(page, 'Edit Fiona Fields');
    assert.equal(await page.getByRole('textbox', { name: 'Gate code' }).inputValue(), '1234#');
    await page.getByRole('textbox', { name: 'Dogs' }).fill('');
    await page.getByRole('button', { name: 'Save client' }).click();
    await page.waitForURL(new RegExp(`/app/clients/${id}$`));
    assert.deepEqual((await get<{ custom_fields: unknown }>(`/api/v1/contacts/${id}`)).custom_fields, { gate_code: '1234#', dogs: null, source: 'Referral' });
    await context.close();
    // The other tests make clients without a gate code.
    for (const f of await get<{ id: number }[]>('/api/v1/custom-fields?module_type=contact')) {
      const res = await h.app.inject({ method: 'DELETE', url: `/api/v1/custom-fields/${f.id}`, headers: { authorization: `Bearer ${ws.token}` } });
      assert.ok(res.statusCode < 300, res.body);
    }
  });

  test('a quote from a template: the draft through the endpoint, the client set, the lines reordered by dragging and by keyboard', async () => {
    const client = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Tess', last_name: 'Template', email: 'tess@example.test' });
    const tpl = await post<{ id: number }>('/api/v1/quote-templates', {
      template_name: 'Spring cleanup',
      name: 'Spring cleanup',
      line_items: [
        { name: 'Raking', quantity: 2, unitPrice: 30 },
        { name: 'Mulch', quantity: 1, unitPrice: 80 },
        { name: 'Edging', quantity: 1, unitPrice: 25 },
      ],
    });
    const { context, page } = await h.page(1280);
    await h.signIn(page, manager, `/app/sign-in?next=${encodeURIComponent(`/quotes/new?client=${client.id}`)}`);
    await checkPage(page, 'New quote');
    await page.getByRole('combobox', { name: 'Start from template' }).click();
    await page.getByRole('option', { name: 'Spring cleanup' }).click();
    await page.waitForURL(/\/app\/quotes\/\d+\/edit$/);
    await page.getByRole('heading', { level: 1, name: /Edit quote #\d+/ }).waitFor();
    const quoteId = pathId(page, '/app/quotes/');
    const names = () => page.getByLabel('Name').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
    await page.getByLabel('Name').nth(2).waitFor();
    assert.deepEqual(await names(), ['Raking', 'Mulch', 'Edging']);
    const quote = await get<{ template_id: number; contact_id: number; status: string; line_items: { name: string }[] }>(`/api/v1/quotes/${quoteId}`);
    assert.equal(quote.template_id, tpl.id);
    assert.equal(quote.contact_id, client.id);
    assert.equal(quote.status, 'draft');
    assert.deepEqual(quote.line_items.map((l) => l.name), ['Raking', 'Mulch', 'Edging']);
    assert.equal((await get<unknown[]>(`/api/v1/quotes?contact_id=${client.id}`)).length, 1, 'one quote made');

    // Dragging line 3 onto line 1 (by its border, not an input) puts it first.
    await page.getByRole('group', { name: 'Line item 3' }).dragTo(page.getByRole('group', { name: 'Line item 1' }), { sourcePosition: { x: 4, y: 4 }, targetPosition: { x: 4, y: 4 } });
    assert.deepEqual(await names(), ['Edging', 'Raking', 'Mulch']);
    await page.getByRole('button', { name: 'Save quote' }).click();
    await page.waitForURL(new RegExp(`/app/quotes/${quoteId}$`));
    assert.deepEqual((await get<{ line_items: { name: string }[] }>(`/api/v1/quotes/${quoteId}`)).line_items.map((l) => l.name), ['Edging', 'Raking', 'Mulch']);

    // By keyboard: focus "Move line 3 up" and press Enter.
    await page.goto(`/app/quotes/${quoteId}/edit`);
    await page.getByLabel('Name').nth(2).waitFor();
    await page.getByRole('button', { name: 'Move line 3 up' }).focus();
    await page.keyboard.press('Enter');
    assert.deepEqual(await names(), ['Edging', 'Mulch', 'Raking']);
    await page.getByRole('button', { name: 'Save quote' }).click();
    await page.waitForURL(new RegExp(`/app/quotes/${quoteId}$`));
    assert.deepEqual((await get<{ line_items: { name: string }[] }>(`/api/v1/quotes/${quoteId}`)).line_items.map((l) => l.name), ['Edging', 'Mulch', 'Raking']);
    await context.close();
  });

  test('a file dropped on the client page is uploaded to the client', async () => {
    const client = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Dora', last_name: 'Drop' });
    const { context, page } = await h.page(1280);
    await h.signIn(page, manager, `/app/sign-in?next=${encodeURIComponent(`/clients/${client.id}`)}`);
    await checkPage(page, 'Dora Drop');
    // A real drop event carrying a DataTransfer with a file, made in the page.
    const transfer = await page.evaluateHandle(
      "(() => { const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0)); const d = new DataTransfer(); d.items.add(new File([png], 'gate.png', { type: 'image/png' })); return d; })()",
    );
    const zone = page.getByTestId('drop-zone');
    await zone.dispatchEvent('dragover', { dataTransfer: transfer });
    await zone.dispatchEvent('drop', { dataTransfer: transfer });
    await waitFor('the upload', async () => (await get<unknown[]>(`/api/v1/uploads?module_type=contact&module_id=${client.id}`)).length > 0).catch(async (err) => {
      throw new Error(`${err.message}; the page says: ${await page.getByTestId('drop-zone').textContent()}`);
    });
    await page.getByRole('link', { name: 'gate.png' }).waitFor();
    await page.getByRole('img', { name: 'gate.png' }).waitFor(); // the image's preview
    const uploads = await get<{ original_file_name: string; mime_type: string }[]>(`/api/v1/uploads?module_type=contact&module_id=${client.id}`);
    assert.deepEqual(uploads.map((u) => [u.original_file_name, u.mime_type]), [['gate.png', 'image/png']]);
    await context.close();
  });

  test("a refused discount shows the API's message by the Discount field and keeps what was typed; a refused upload names the file and why", async () => {
    const client = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Rita', last_name: 'Refused' });
    const quote = await post<{ id: number }>('/api/v1/quotes', { contact_id: client.id, line_items: [{ name: 'Hedge trim', quantity: 1, unitPrice: 90 }] });
    const { context, page } = await h.page(1280);
    await h.signIn(page, manager, `/app/sign-in?next=${encodeURIComponent(`/quotes/${quote.id}/edit`)}`);
    await page.getByLabel('Name').first().waitFor();
    const discount = page.getByLabel('Discount', { exact: true });
    await discount.fill('150');
    await page.getByRole('button', { name: 'Save quote' }).click();
    // The API's own words, tied to the field (aria-describedby), not a generic banner.
    await page.getByText('a percentage discount cannot exceed 100').waitFor();
    assert.equal(await discount.getAttribute('aria-invalid'), 'true');
    const describedBy = (await discount.getAttribute('aria-describedby')) ?? '';
    const described = await page.evaluate((ids) => ids.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' '), describedBy);
    assert.match(described, /A percentage discount cannot exceed 100/);
    assert.equal(await discount.inputValue(), '150', 'what was typed stays');
    assert.equal((await get<{ discount: number }>(`/api/v1/quotes/${quote.id}`)).discount, 0, 'nothing changed');

    // An upload whose bytes are not the image it claims to be: the API refuses it, the page says which file and why.
    await page.goto(`/app/clients/${client.id}`);
    await checkPage(page, 'Rita Refused');
    await page.getByTestId('drop-zone').locator('input[type=file]').setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
    const alert = page.getByTestId('drop-zone').getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^fake\.png: Validation error: File content does not match the declared type image\/png/);
    assert.deepEqual(await get<unknown[]>(`/api/v1/uploads?module_type=contact&module_id=${client.id}`), []);
    await context.close();
  });

  test("an API error on a field the form has no input for is spelled out in the form's alert: a visit for a job deleted meanwhile", async () => {
    const client = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Gina', last_name: 'Gone' });
    const job = await post<{ id: number }>('/api/v1/jobs', { contact_id: client.id, name: 'Porch repair' });
    const { context, page } = await h.page(1280);
    await h.signIn(page, manager, `/app/sign-in?next=${encodeURIComponent(`/jobs/${job.id}`)}`);
    await page.getByRole('button', { name: 'Schedule visit' }).click();
    await page.getByLabel('Date').fill('2031-05-06');
    // The job goes (another office user, a phone) while the form is open.
    const gone = await h.app.inject({ method: 'DELETE', url: `/api/v1/jobs/${job.id}`, headers: { authorization: `Bearer ${ws.token}` } });
    assert.ok(gone.statusCode < 300, gone.body);
    await page.getByRole('button', { name: 'Save visit' }).click();
    // `job_id` is in the body, not among the form's inputs: the alert names it and the API's words.
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', new RegExp(`^Job ${job.id} does not exist`));
    assert.equal(await page.getByLabel('Date').inputValue(), '2031-05-06', 'what was typed stays');
    assert.deepEqual(await get<unknown[]>(`/api/v1/events?job_id=${job.id}`), []);
    await context.close();
  });

  test('a member sees no button the role cannot use on the client and job pages, and the API refuses the same writes', async () => {
    const member = await h.person(ws.id, 'member');
    const client = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Mona', last_name: 'Member', email: 'mona@example.test' });
    const job = await post<{ id: number; number: number }>('/api/v1/jobs', { contact_id: client.id, name: 'Hedges', line_items: [{ name: 'Hedge trimming', quantity: 1, unitPrice: 99 }] });
    const { context, page } = await h.page(375);
    await h.signIn(page, member, `/app/sign-in?next=${encodeURIComponent(`/clients/${client.id}`)}`);
    await checkPage(page, 'Mona Member');
    await page.getByRole('link', { name: `Job #${job.number} Hedges` }).waitFor();
    for (const name of ['Edit', 'New quote', 'New request', 'New job', 'Send hub link', 'Add property']) {
      assert.equal(await page.getByRole('button', { name, exact: true }).or(page.getByRole('link', { name, exact: true })).count(), 0, `no ${name}`);
    }
    assert.equal(await page.getByRole('region', { name: 'Quotes' }).count(), 0, 'no quotes');
    assert.equal(await page.getByRole('region', { name: 'Invoices' }).count(), 0, 'no invoices');
    assert.equal(await page.getByText(/\$\d/).count(), 0, 'no money');

    await page.getByRole('link', { name: `Job #${job.number} Hedges` }).click();
    await checkPage(page, `Job #${job.number}`);
    for (const name of ['Edit', 'Create invoice', 'Schedule visit']) {
      assert.equal(await page.getByRole('button', { name, exact: true }).or(page.getByRole('link', { name, exact: true })).count(), 0, `no ${name}`);
    }
    assert.equal(await page.getByRole('combobox', { name: 'Status' }).count(), 0, 'no status select');
    assert.equal(await page.getByText(/\$\d/).count(), 0, 'no money');

    // The same writes with the member's own session and CSRF token: 403 from the API.
    const statuses = await page.evaluate<number[]>(
      `(async (contactId, jobId) => {
        const me = await (await fetch('/api/v1/me')).json();
        const headers = { 'content-type': 'application/json', 'x-csrf-token': me.data.csrf_token };
        const calls = [
          ['PUT', '/api/v1/contacts/' + contactId, { first_name: 'Changed' }],
          ['POST', '/api/v1/contacts/' + contactId + '/hub-link', undefined],
          ['POST', '/api/v1/quotes', { contact_id: contactId }],
          ['POST', '/api/v1/requests', { contact_id: contactId }],
          ['PUT', '/api/v1/jobs/' + jobId, { name: 'Changed' }],
          ['POST', '/api/v1/jobs/' + jobId + '/create-invoice', undefined],
        ];
        const out = [];
        for (const [method, url, body] of calls) {
          const res = await fetch(url, { method, headers: body ? headers : { 'x-csrf-token': headers['x-csrf-token'] }, body: body ? JSON.stringify(body) : undefined });
          out.push(res.status);
        }
        return out;
      })(${client.id}, ${job.id})`,
    );
    assert.deepEqual(statuses, [403, 403, 403, 403, 403, 403]);
    assert.equal((await get<{ first_name: string }>(`/api/v1/contacts/${client.id}`)).first_name, 'Mona');
    assert.deepEqual(await get<unknown[]>(`/api/v1/quotes?contact_id=${client.id}`), []);
    await context.close();
  });

  test("upcoming visits on the client's page: from today on, not completed or cancelled, with date, time and title", async () => {
    const client = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Vera', last_name: 'Visits' });
    const other = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Otto', last_name: 'Other' });
    const job = await post<{ id: number }>('/api/v1/jobs', { contact_id: client.id, name: 'Lawn' });
    const otherJob = await post<{ id: number }>('/api/v1/jobs', { contact_id: other.id, name: 'Not hers' });
    const request = await post<{ id: number }>('/api/v1/requests', { contact_id: client.id, details: 'Assessment' });
    const visit = (body: object) => post('/api/v1/events', { type: 'appointment', ...body });
    await visit({ job_id: job.id, name: 'Spring mowing', start_date: '2099-03-02', end_date: '2099-03-02', start_time: '09:30', end_time: '11:00' });
    await visit({ request_id: request.id, name: 'Site assessment', start_date: '2099-02-01', end_date: '2099-02-01', start_time: '14:00', end_time: '15:00' });
    await visit({ job_id: job.id, name: 'Done already', start_date: '2099-03-03', end_date: '2099-03-03', status: 'completed' });
    await visit({ job_id: job.id, name: 'Called off', start_date: '2099-03-04', end_date: '2099-03-04', status: 'cancelled' });
    await visit({ job_id: job.id, name: 'Last year', start_date: '2001-01-01', end_date: '2001-01-01' });
    await visit({ job_id: otherJob.id, name: 'Otto visit', start_date: '2099-03-05', end_date: '2099-03-05' });
    const { context, page } = await h.page(375);
    await h.signIn(page, manager, `/app/sign-in?next=${encodeURIComponent(`/clients/${client.id}`)}`);
    await checkPage(page, 'Vera Visits');
    const table = page.getByRole('table', { name: 'Upcoming visits' });
    await table.waitFor();
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()));
    assert.equal(rows.length, 2, rows.join(' | '));
    assert.match(rows[0], /Site assessment/);
    assert.match(rows[0], /2:00 PM – 3:00 PM/); // the workspace's one time format (A157)
    assert.match(rows[1], /Spring mowing/);
    assert.match(rows[1], /9:30 AM – 11:00 AM/);
    assert.match(rows[1], /2099/);
    await context.close();
  });

  test("the client's details name its type, and say nothing of the type of a client that has none", async () => {
    const typed = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Tina', last_name: 'Typed', email: 'tina@example.com', type: 'former_customer' });
    const plain = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Nico', last_name: 'Notype', email: 'nico@example.com' });
    const { context, page } = await h.page();
    await h.signIn(page, manager, `/app/sign-in?next=${encodeURIComponent(`/clients/${typed.id}`)}`);
    const details = page.getByText('tina@example.com').locator('..');
    await details.waitFor();
    assert.match(await details.innerText(), /Former customer/);
    await page.goto(`${h.origin}/app/clients/${plain.id}`);
    const plainDetails = page.getByText('nico@example.com').locator('..');
    await plainDetails.waitFor();
    assert.doesNotMatch(await plainDetails.innerText(), /None/);
    await context.close();
  });

  test('Send hub link emails it when the client has an email; without one it only shows the link and says so', async () => {
    const withEmail = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Hana', last_name: 'Hub', email: 'hana@example.test' });
    const without = await post<{ id: number }>('/api/v1/contacts', { first_name: 'Nils', last_name: 'Nomail' });
    const { context, page } = await h.page(375);
    await h.signIn(page, manager, `/app/sign-in?next=${encodeURIComponent(`/clients/${withEmail.id}`)}`);
    await checkPage(page, 'Hana Hub');
    await page.getByRole('button', { name: 'Send hub link' }).click();
    await page.getByRole('status').getByText('Emailed to hana@example.test.').waitFor();
    assert.match(await page.getByRole('textbox', { name: 'Hub link' }).inputValue(), /\/hub\/[A-Za-z0-9_-]+$/);
    const smtp = h.smtp!;
    await waitFor('the hub link email', () => smtp.mails.some((m) => m.to.includes('hana@example.test')));
    const sent = await get<{ type: string; to: string }[]>('/api/v1/messages?type=hub_link_to_customer');
    assert.deepEqual(sent.map((m) => m.to), ['hana@example.test']);

    await page.goto(`/app/clients/${without.id}`);
    await checkPage(page, 'Nils Nomail');
    await page.getByRole('button', { name: 'Send hub link' }).click();
    await page.getByRole('status').getByText('The client has no email: it was not emailed.').waitFor();
    assert.match(await page.getByRole('textbox', { name: 'Hub link' }).inputValue(), /\/hub\/[A-Za-z0-9_-]+$/);
    assert.equal((await get<unknown[]>('/api/v1/messages?type=hub_link_to_customer')).length, 1, 'nothing more queued');
    await context.close();
  });
});
