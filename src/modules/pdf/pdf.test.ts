import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { setWorkspace } from '../workspace/workspace.service.ts';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { pdfText } from '../../../test/pdf-text.ts';
import { png } from '../../../test/upload-fixtures.ts';
import { threadId } from 'node:worker_threads';
import { documentView } from '../../domain/document-view.ts';
import { normalizeLineItems } from '../../domain/line-items.ts';
import { draw, drawEveryTextWrapped } from './pdf-layout.ts';
import { PDFDocument } from './pdfkit-standard-fonts.ts';
import { SideThreads } from '../../kernel/side-threads.ts';
import { drawInPool } from './pdf-pool.ts';
import { invoicePdf, quotePdf, winAnsi } from './pdf.service.ts';

// E9: quotes and invoices as PDFs. The text is read back with pdfjs-dist, as a
// PDF reader (or a screen reader, or a search) would.


const get = (t: TestApp, token: string, url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

describe('PDFs (E9)', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let api: Client;
  let contactId: number;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db, 'Bob & Sons Plumbing');
    api = client(t.app, ws.token);
    contactId = (await api.post('/api/v1/contacts', { first_name: 'Carla', last_name: 'Customer', email: 'carla@customer.test' })).body.data.id;
  });
  after(() => t.close());

  test('a quote PDF: attachment headers, and its text holds the business, customer, number, date, every line and the totals in the currency', async () => {
    const created = await api.post('/api/v1/quotes', {
      contact_id: contactId,
      name: 'Bathroom refit',
      date: '2026-03-05',
      expire_on: '2026-04-05',
      discount: 10,
      discount_unit: '%',
      tax_rate: 8.25,
      message: 'Thanks for asking us.',
      line_items: [
        { name: 'Copper pipe', quantity: 12.5, unitPrice: 4.2, description: 'Type L, 3/4 inch' },
        { name: 'Labour', quantity: 3, unitPrice: 1250 },
        { name: 'Heated towel rail', quantity: 1, unitPrice: 300, optional: true },
      ],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const quote = created.body.data;
    const res = await get(t, ws.token, `/api/v1/quotes/${quote.id}/pdf`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.equal(res.headers['content-disposition'], `attachment; filename="quote-${quote.number}.pdf"`);
    assert.equal(res.rawPayload.subarray(0, 5).toString(), '%PDF-');
    assert.ok(res.rawPayload.equals((await get(t, ws.token, `/api/v1/quotes/${quote.id}/pdf`)).rawPayload), 'one version, the same bytes');
    const pages = await pdfText(res.rawPayload);
    assert.equal(pages.length, 1);
    const text = pages[0].text;
    for (const want of [
      'Bob & Sons Plumbing',
      'Carla Customer',
      `Quote #${quote.number}`,
      'Bathroom refit',
      'March 5, 2026',
      'April 5, 2026',
      'Copper pipe',
      'Type L, 3/4 inch',
      '12.5',
      '$4.20',
      '$52.50', // 12.5 x 4.20
      'Labour',
      '$1,250.00',
      '$3,750.00',
      'Heated towel rail (optional)',
      '$300.00',
      'Subtotal',
      '$3,802.50',
      '-$380.25', // 10 %
      'Tax (8.25%)',
      '$282.34', // 8.25 % of 3,422.25
      '$3,704.59',
      'Thanks for asking us.',
    ]) {
      assert.ok(text.includes(want), `"${want}" in: ${text}`);
    }
    assert.equal(quote.total, 3704.59);
  });

  test('an invoice PDF: due date, amount paid and balance; the currency is the workspace’s', async () => {
    const w2 = await seedWorkspace(t.db, 'Euro Heating');
    await setWorkspace(t.db, w2.workspace.id, { currency: 'eur' });
    const a = client(t.app, w2.token);
    const contact = (await a.post('/api/v1/contacts', { first_name: 'Jörg', last_name: 'Müller' })).body.data.id;
    const inv = (
      await a.post('/api/v1/invoices', {
        contact_id: contact,
        name: 'Boiler service',
        status: 'sent',
        date: '2026-01-10',
        payment_terms: 'net_30',
        line_items: [{ name: 'Service', quantity: 2, unitPrice: 120 }],
      })
    ).body.data;
    assert.equal((await a.post(`/api/v1/invoices/${inv.id}/payments`, { amount: 40 })).status, 201);
    const res = await get(t, w2.token, `/api/v1/invoices/${inv.id}/pdf`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-disposition'], `attachment; filename="invoice-${inv.number}.pdf"`);
    const [page] = await pdfText(res.rawPayload);
    for (const want of ['Euro Heating', 'Jörg Müller', `Invoice #${inv.number}`, 'January 10, 2026', 'Due date', 'February 9, 2026', '€120.00', '€240.00', 'Amount paid', '€40.00', 'Balance due', '€200.00']) {
      assert.ok(page.text.includes(want), `"${want}" in: ${page.text}`);
    }
  });

  test('a 50-line invoice spans pages cleanly: every row whole on one page, headers repeated, page numbers, long texts wrapped inside the page', async () => {
    const long = 'A very long description that goes on and on about the work done, '.repeat(12);
    const items = Array.from({ length: 50 }, (_, i) => ({
      name: `Item ${String(i + 1).padStart(2, '0')} ${i === 7 ? 'with a name long enough to wrap onto a second line of the item column, surely' : 'part'}`,
      quantity: i + 1,
      unitPrice: 10 + i,
      ...(i % 10 === 3 ? { description: long } : {}),
    }));
    const inv = (
      await api.post('/api/v1/invoices', { contact_id: contactId, line_items: items, payment_instructions: 'Pay by bank transfer. '.repeat(200) })
    ).body.data;
    const res = await get(t, ws.token, `/api/v1/invoices/${inv.id}/pdf`);
    assert.equal(res.statusCode, 200);
    const pages = await pdfText(res.rawPayload);
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    for (const [n, page] of pages.entries()) {
      assert.ok(page.text.includes(`Page ${n + 1} of ${pages.length}`), `page ${n + 1} numbered`);
      // Nothing drawn outside the page's margins (the footer sits in the bottom one).
      for (const item of page.items) {
        assert.ok(item.y > 30 && item.y < page.height - 40, `page ${n + 1}: "${item.str}" at y=${item.y}`);
        assert.ok(item.x >= 49 && item.x < 562, `page ${n + 1}: "${item.str}" at x=${item.x}`);
      }
    }
    for (const i of items.keys()) {
      const lineTotal = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format((i + 1) * (10 + i));
      const label = `Item ${String(i + 1).padStart(2, '0')}`;
      const on = pages.filter((p) => p.text.includes(label));
      assert.equal(on.length, 1, `${label} on one page`);
      // Its amounts are on the same page, beside it (same baseline as the name's first line).
      const page = on[0];
      const nameItem = page.items.find((x) => x.str.startsWith(label))!;
      assert.ok(page.items.some((x) => x.str === lineTotal && Math.abs(x.y - nameItem.y) < 1), `${label}: ${lineTotal} beside it`);
      assert.ok(page.items.some((x) => x.str === String(i + 1) && Math.abs(x.y - nameItem.y) < 1), `${label}: quantity beside it`);
    }
    for (const page of pages.slice(0, -1)) assert.ok(page.text.includes('UNIT PRICE'), 'the table header on every page with rows');
    const all = pages.map((p) => p.text).join(' ');
    assert.ok(all.includes('surely'), 'the long name is all there');
    assert.equal(all.split('Pay by bank transfer.').length - 1, 200, 'long text flows on, nothing lost');
  });

  test('another workspace’s id and an absent id are both 404 Quote/Invoice not found, like the single GET', async () => {
    const other = await seedWorkspace(t.db);
    const q = (await api.post('/api/v1/quotes', { name: 'Mine' })).body.data.id;
    const i = (await api.post('/api/v1/invoices', { name: 'Mine' })).body.data.id;
    for (const [path, id, error] of [
      ['quotes', q, 'Quote not found'],
      ['invoices', i, 'Invoice not found'],
    ] as const) {
      const foreign = await client(t.app, other.token).get(`/api/v1/${path}/${id}/pdf`);
      const absent = await client(t.app, other.token).get(`/api/v1/${path}/999999/pdf`);
      const single = await client(t.app, other.token).get(`/api/v1/${path}/${id}`);
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, { success: false, error });
      assert.deepEqual(foreign.body, absent.body);
      assert.deepEqual(foreign.body, single.body);
    }
    // The service the hub calls answers the same.
    await assert.rejects(quotePdf(t.db, other.workspace.id, q), { status: 404, message: 'Quote not found' });
    await assert.rejects(invoicePdf(t.db, other.workspace.id, i), { status: 404, message: 'Invoice not found' });
    assert.match((await quotePdf(t.db, ws.workspace.id, q)).filename, /^quote-\d+\.pdf$/);
  });

  test('scopes: quotes:read and invoices:read; a key without them is 403', async () => {
    const q = (await api.post('/api/v1/quotes', { name: 'Scoped' })).body.data.id;
    const i = (await api.post('/api/v1/invoices', { name: 'Scoped' })).body.data.id;
    const quotesOnly = await keyFor(t.db, ws.workspace.id, 'rest', ['quotes:read']);
    const invoicesOnly = await keyFor(t.db, ws.workspace.id, 'rest', ['invoices:read']);
    assert.equal((await get(t, quotesOnly, `/api/v1/quotes/${q}/pdf`)).statusCode, 200);
    assert.equal((await get(t, invoicesOnly, `/api/v1/invoices/${i}/pdf`)).statusCode, 200);
    const refused = await get(t, quotesOnly, `/api/v1/invoices/${i}/pdf`);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().success, false);
    assert.equal((await get(t, invoicesOnly, `/api/v1/quotes/${q}/pdf`)).statusCode, 403);
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/quotes/${q}/pdf` })).statusCode, 401);
  });

  test('a currency the font has no symbol for is written by its code; text outside the font loses only its accents', async () => {
    const w3 = await seedWorkspace(t.db, 'Mumbai Repairs');
    await setWorkspace(t.db, w3.workspace.id, { currency: 'inr' });
    const a = client(t.app, w3.token);
    const q = (await a.post('/api/v1/quotes', { name: 'Zażółć', line_items: [{ name: 'Fan fitting', unitPrice: 1500 }] })).body.data.id;
    const [page] = await pdfText((await get(t, w3.token, `/api/v1/quotes/${q}/pdf`)).rawPayload);
    assert.ok(/INR\s1,500\.00/.test(page.text), page.text);
    assert.ok(page.text.includes('Zazó?c'), page.text);
    assert.equal(winAnsi('Žluťoučký kůň ₹ 東'), 'Žlutoucký kun ? ?');
  });

  test('PDFs are drawn in a worker thread, never the API\'s, with the same bytes as drawn in the API\'s thread (so the same text)', async () => {
    const lines = normalizeLineItems(
      Array.from({ length: 50 }, (_, i) => ({ name: `Line ${i + 1}`, quantity: 1 + (i % 4), unitPrice: 12.5 + i, ...(i % 10 === 0 ? { description: 'Parts and labour. '.repeat(8) } : {}) })),
    );
    const view = documentView({ line_items: lines, discount: 5, discount_unit: '%', deposit: 0, deposit_unit: '%', tax_rate: 8, total: 0 }, 'USD');
    const sheet = {
      title: 'Invoice #7',
      changedAt: '2026-03-05T14:30:00.000Z',
      workspaceName: 'Bob & Sons Plumbing',
      businessLines: [],
      contactName: 'Carla Customer',
      name: 'Fifty lines',
      facts: [['Date', 'March 5, 2026']] as [string, string][],
      view,
      after: [['Balance due', view.total]] as [string, string][],
      notes: [['Message', 'Thank you']] as [string, string][],
    };
    const [pooled, again] = await Promise.all([drawInPool(sheet), drawInPool(sheet)]);
    assert.notEqual(pooled.threadId, threadId);
    assert.ok(pooled.threadId > 0);
    const here = await draw(sheet);
    assert.ok(pooled.pdf.equals(here), 'the worker draws the same bytes');
    assert.ok(again.pdf.equals(here));
    const pages = await pdfText(pooled.pdf);
    assert.equal(pages.length, 3);
    assert.ok(pages[0].text.includes('Line 1') && pages[2].text.includes('Page 3 of 3'), pages[2].text);

    // A pool's threads end once idle (their memory returns), and a later PDF starts one again.
    const pool = new SideThreads(2, 300);
    const jobs = [drawInPool(sheet, pool), drawInPool(sheet, pool)];
    assert.equal(pool.threads, 2); // both started at once
    await Promise.all(jobs);
    for (let waited = 0; pool.threads > 0 && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(pool.threads, 0);
    assert.ok((await drawInPool(sheet, pool)).pdf.equals(here));
    assert.equal(pool.threads, 1);
  });

  test('a text that surely fits one line is drawn without pdfkit\'s line wrapper, with the bytes the wrapper gives (F197)', async () => {
    // Names of every length up to past the item column (the last ones wrap), kerning
    // pairs at word boundaries (" A", " T", " Y"), accents, amounts of every width, and
    // enough rows that they fall at every height of a page, the bottom's included.
    const words = ['AVAYA', 'To', 'Yacht', 'Wave', 'LT', 'café', 'naïve', '12,50', 'Tyvek', 'P.V.C.'];
    const lines = normalizeLineItems(
      Array.from({ length: 140 }, (_, i) => ({
        name: Array.from({ length: 1 + (i % 17) }, (_, j) => words[(i + j) % words.length]).join(' '),
        quantity: 1 + ((i * 37) % 9999),
        unitPrice: 0.5 + ((i * 7919) % 99999),
        ...(i % 13 === 5 ? { description: 'Parts and labour, as agreed on site. '.repeat(1 + (i % 6)) } : {}),
      })),
    );
    const view = documentView({ line_items: lines, discount: 5, discount_unit: '%', deposit: 10, deposit_unit: '%', tax_rate: 8.25, total: 0 }, 'EUR');
    const sheet = {
      title: 'Invoice #11',
      changedAt: '2026-03-05T14:30:00.000Z',
      workspaceName: 'AVA Tyre & Wave Ltd',
      businessLines: ['1 Main St, Springfield'],
      contactName: 'Carla Customer',
      name: 'Every width',
      facts: [['Date', 'March 5, 2026']] as [string, string][],
      view,
      after: [['Amount paid', '€10.00'], ['Balance due', view.total]] as [string, string][],
      notes: [['Message', 'Thank you. '.repeat(40)]] as [string, string][],
    };
    const text = Reflect.get(PDFDocument.prototype, 'text') as (...args: unknown[]) => unknown;
    let calls = 0;
    Reflect.set(PDFDocument.prototype, 'text', function (this: unknown, ...args: unknown[]) {
      calls++;
      return text.apply(this, args);
    });
    try {
      const wrapped = await drawEveryTextWrapped(() => draw(sheet));
      const wrappedCalls = calls;
      calls = 0;
      const direct = await draw(sheet);
      assert.ok(direct.equals(wrapped), 'the same bytes');
      assert.ok(wrappedCalls > 600, `${wrappedCalls} texts wrapped`);
      assert.ok(calls < wrappedCalls / 2, `${calls} of ${wrappedCalls} still through text()`);
      assert.ok(calls > 10, `${calls}: the long names, descriptions and notes still wrap`);
      const pages = await pdfText(direct);
      assert.ok(pages.length >= 5, `${pages.length} pages`);
      assert.ok(pages.some((page) => page.text.includes('AVAYA To Yacht Wave')));
    } finally {
      Reflect.set(PDFDocument.prototype, 'text', text);
    }
  });

  // chrt is util-linux's; without it a PDF thread keeps the normal class (operator.md).
  const chrt = process.platform === 'linux' && spawnSync('chrt', ['--version']).status === 0;
  test('a PDF thread runs below the API\'s thread: nice 5, in Linux\'s batch class, which never preempts on waking (F198)', { skip: !chrt && 'needs Linux and chrt' }, async () => {
    // Each thread of this process: its nice value and scheduling policy (fields 19 and 41 of its stat; 3 is SCHED_BATCH).
    const { readdirSync, readFileSync } = await import('node:fs');
    const threads = () =>
      readdirSync('/proc/self/task').map((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return { tid: Number(tid), nice: Number(fields[16]), policy: Number(fields[38]) };
      });
    const before = new Set(threads().map((task) => task.tid)); // other tests' pools may still have threads, or end them
    const pool = new SideThreads(1, 60_000);
    const sheet = { title: 'Quote #1', changedAt: '2026-03-05T14:30:00.000Z', workspaceName: 'W', businessLines: [], contactName: '', name: null, facts: [], view: documentView({ line_items: [], discount: 0, discount_unit: '%', deposit: 0, deposit_unit: '%', tax_rate: 0, total: 0 }, 'USD'), after: [], notes: [] };
    assert.ok((await drawInPool(sheet, pool)).threadId > 0);
    assert.equal(pool.threads, 1);
    const started = threads().filter((task) => !before.has(task.tid));
    assert.deepEqual(
      started.filter((task) => task.nice === 5 && task.policy === 3).length,
      1,
      `the pool's thread among the threads it started: ${JSON.stringify(started)}`,
    );
    const own = threads().find((task) => task.tid === process.pid)!;
    assert.deepEqual([own.nice, own.policy], [0, 0], 'the API\'s thread: normal');
  });

  test('a sheet too large for a pool thread\'s capped heap ends that thread and is drawn in a thread without the cap (F188)', async () => {
    const lines = normalizeLineItems(Array.from({ length: 30 }, (_, i) => ({ name: `Line ${i + 1}`, unitPrice: 10, description: 'Parts and labour. '.repeat(280).slice(0, 5000) })));
    const view = documentView({ line_items: lines, discount: 0, discount_unit: '%', deposit: 0, deposit_unit: '%', tax_rate: 0, total: 0 }, 'USD');
    const sheet = { title: 'Invoice #9', changedAt: '2026-03-05T14:30:00.000Z', workspaceName: 'Bob & Sons Plumbing', businessLines: [], contactName: 'Carla Customer', name: null, facts: [], view, after: [], notes: [] };
    const pool = new SideThreads(1, 60_000, 8); // an 8 MB old generation: too small for 150,000 characters of descriptions
    const { pdf } = await drawInPool(sheet, pool);
    assert.equal(pool.threads, 0, 'the pool thread ran out of memory and ended (an idle one would live 60 s)');
    assert.ok(pdf.equals(await draw(sheet)), 'drawn whole, the same bytes');
    const roomy = new SideThreads(1, 60_000, 64);
    assert.ok((await drawInPool(sheet, roomy)).pdf.equals(pdf));
    assert.equal(roomy.threads, 1, 'with room, the pool thread draws it and stays');
  });

  test('under a process-wide --max-semi-space-size (npm start\'s), a PDF thread gets the young generation the pool asks for (F189)', () => {
    // V8 takes the flag over a thread's resourceLimits, and reads it when a heap is made.
    // Once the pool has started its thread, a thread asking for the pool's young
    // generation gets it (4 MB of new space), not the flag's 16 MB semi-spaces (32 MB),
    // which the main thread keeps.
    const probe = `
      import { Worker } from 'node:worker_threads';
      import { draw } from ${JSON.stringify(import.meta.resolve('./pdf-layout.ts'))};
      import { drawInPool } from ${JSON.stringify(import.meta.resolve('./pdf-pool.ts'))};
      import { SideThreads, YOUNG_GENERATION_MB } from ${JSON.stringify(import.meta.resolve('../../kernel/side-threads.ts'))};
      const newSpace = 'let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 100000) keep = []; }'
        + 'Promise.all([import("node:worker_threads"), import("node:v8")]).then(([w, v8]) => w.parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size / 2 ** 20))';
      const before = await new Promise((resolve) => new Worker(newSpace, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } }).once('message', resolve));
      const pool = new SideThreads(1, 100);
      await drawInPool({ title: 'Quote #1', changedAt: '2026-03-05T14:30:00.000Z', workspaceName: 'Probe', businessLines: [], contactName: null, name: null, facts: [], view: { lines: [], rows: [], total: '$0.00' }, after: [], notes: [] }, pool).catch(() => {});
      const after = await new Promise((resolve) => new Worker(newSpace, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } }).once('message', resolve));
      let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 100000) keep = []; }
      const main = (await import('node:v8')).getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
      console.log(JSON.stringify({ before, after, main }));`;
    const run = spawnSync(process.execPath, ['--max-semi-space-size=16', '--import', 'tsx', '--input-type=module', '-e', probe], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { before: 32, after: 4, main: 32 }, 'the main thread keeps the flag\'s');
  });

  test('pdfkit is loaded without fontkit and AES (F181): their stand-ins refuse, and the standard fonts draw', async () => {
    const fromPdfkit = createRequire(createRequire(import.meta.url).resolve('pdfkit'));
    const cached = (name: string) => createRequire(import.meta.url).cache[fromPdfkit.resolve(name)]?.exports as Record<string, () => unknown>;
    assert.throws(() => cached('fontkit').create(), /fontkit \(font files\) is not loaded/);
    assert.throws(() => cached('@noble/ciphers/aes').cbc(), /AES \(encrypted PDFs\) is not loaded/);
    const doc = new PDFDocument();
    doc.font('Helvetica-Bold').text('Standard fonts need neither.');
    assert.throws(() => doc.font(Buffer.from('a font file')), /fontkit \(font files\) is not loaded/);
  });

  test('a page\'s content is kept as text until the page is written (F187), with the bytes pdfkit itself writes', async () => {
    // The same document, drawn here and by an unaltered pdfkit in a thread of its own:
    // pages buffered, text with Latin-1 letters, a drawn line, an image between operators.
    const logo = png(4, 3).toString('base64');
    const drawing = `(PDFDocument) => {
      const doc = new PDFDocument({ bufferPages: true, info: { CreationDate: new Date('2026-03-05T14:30:00Z') } });
      const chunks = [];
      doc.on('data', (c) => chunks.push(c));
      const done = new Promise((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
      for (let i = 0; i < 120; i++) doc.fontSize(10 + (i % 3)).text('Ligne ' + i + ': café, naïve, 12,50 €', { width: 300 });
      doc.moveTo(50, 60).lineTo(300, 60).stroke();
      doc.image(Buffer.from(${JSON.stringify(logo)}, 'base64'), 50, 80, { width: 20 });
      doc.text('after the image');
      const pending = doc.page.content.buffer.length;
      doc.end();
      return done.then((pdf) => ({ pdf, pending }));
    }`;
    const here = (await (new Function(`return ${drawing}`)() as (d: unknown) => Promise<{ pdf: Buffer; pending: number }>)(PDFDocument)) as { pdf: Buffer; pending: number };
    const { Worker } = await import('node:worker_threads');
    const plain = new Worker(
      `const { parentPort } = require('node:worker_threads');
       (${drawing})(require(${JSON.stringify(createRequire(import.meta.url).resolve('pdfkit'))})).then((r) => parentPort.postMessage(r));`,
      { eval: true },
    );
    const theirs = (await new Promise((resolve, reject) => plain.once('message', resolve).once('error', reject))) as { pdf: Uint8Array; pending: number };
    await plain.terminate();
    assert.ok(theirs.pending > 20, `pdfkit keeps an array per operator (${theirs.pending} on the last page)`);
    assert.equal(here.pending, 0, 'here the page\'s operators wait as text');
    assert.ok(Buffer.from(theirs.pdf).equals(here.pdf), 'the same bytes as pdfkit writes');
    assert.ok((await pdfText(here.pdf)).some((page) => page.text.includes('café, naïve')));
  });
});
