// How a page's first load reaches the API, in a real browser on the production build:
// GET /api/v1/me is preloaded by the HTML's answer and the app's own read takes it (the
// browser warns when a preload goes unused or does not match), and a record page reads
// its notes, files and custom fields in the same round as the record, not after it.
// A page's own script files come with the HTML's Link header (modulepreload, as the build
// listed them in route-preloads.json), and so does a record page's record: both load
// beside the entry script, not after it. Its notes and files are drawn in a commit after
// its other sections, so that no one commit holds the page's main thread for long.
// Every fetch() the page makes is recorded by an init script: when it was called and
// when its answer reached the page. Home, where "Get started" and today's visits arrive
// with their reads, draws without moving what was already drawn (layout shift), and no
// page load reads localStorage (Mantine's colour scheme, a synchronous storage load), and
// the header's search keeps no hidden list mounted.
// And the note box the record pages share shows two
// lines when empty and grows with its text, sized by CSS instead of a script that
// measures the page on every render.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { APP_DIR, type Harness, skipBrowser, startHarness } from './harness.ts';

interface Call {
  path: string;
  called: number;
  answered: number | null;
}

const RECORD_FETCHES = `(() => {
  const calls = (window.__calls = []);
  const original = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, location.href);
    const call = { path: url.pathname + url.search, called: performance.now(), answered: null };
    calls.push(call);
    return original(input, init).then((res) => { call.answered = performance.now(); return res; });
  };
})();`;

// React (production too) hands each commit's root to a devtools hook when one is there:
// this one keeps the latest as window.__root, for a test to walk the mounted tree.
const REACT_ROOT =
  'window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = { supportsFiber: true, renderers: new Map(), inject() { return 1; }, onCommitFiberRoot(_, root) { window.__root = root; }, onCommitFiberUnmount() {}, onPostCommitFiberRoot() {}, checkDCE() {} };';

describe('a page’s first load (browser)', { skip: skipBrowser }, () => {
  let h: Harness;
  let ws: Awaited<ReturnType<Harness['workspace']>>;
  let clientId = 0;
  let quoteId = 0;
  before(async () => {
    h = await startHarness();
    ws = await h.workspace('First Load Gardens');
    clientId = (await h.call(ws.token, 'POST', '/api/v1/contacts', { first_name: 'Dana', last_name: 'Reyes' })).data.id;
    quoteId = (await h.call(ws.token, 'POST', '/api/v1/quotes', { name: 'Patio', contact_id: clientId, line_items: [{ name: 'Stone', unitPrice: 900, quantity: 1 }] })).data.id;
  });
  after(() => h?.close());

  test('GET /api/v1/me comes from the preload; a client’s and a quote’s notes, files and custom fields are asked for before the record answers', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await context.addInitScript(RECORD_FETCHES);
    const warnings: string[] = [];
    page.on('console', (m) => {
      if (/preload/i.test(m.text())) warnings.push(m.text());
    });
    for (const [path, record, heading] of [
      [`/app/clients/${clientId}`, `/api/v1/contacts/${clientId}`, 'Dana Reyes'],
      [`/app/quotes/${quoteId}`, `/api/v1/quotes/${quoteId}`, 'Quote #1'],
    ] as const) {
      await page.goto(`${h.origin}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      let calls: Call[] = [];
      for (let tries = 0; tries < 200; tries++) {
        calls = await page.evaluate<Call[]>('window.__calls');
        if (['/api/v1/comments?', '/api/v1/uploads?', '/api/v1/custom-fields?'].every((p) => calls.some((c) => c.path.startsWith(p) && c.answered))) break;
        await page.waitForTimeout(50);
      }
      const own = calls.find((c) => c.path === record);
      assert.ok(own?.answered, `${path}: the record was read (${calls.map((c) => c.path).join(', ')})`);
      for (const part of ['/api/v1/comments?', '/api/v1/uploads?', '/api/v1/custom-fields?']) {
        const call = calls.find((c) => c.path.startsWith(part));
        assert.ok(call, `${path}: ${part} was read`);
        assert.ok(call.called < own.answered, `${path}: ${part} was asked for at ${call.called} ms, after the record answered at ${own.answered} ms`);
      }
    }
    // A preload the page did not take, or took with other credentials, is a console warning (after about 3 s when unused).
    await page.waitForTimeout(3500);
    assert.deepEqual(warnings, []);
    await context.close();
  });

  test('a client’s and a quote’s script files and record are fetched beside the entry script, not after it', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const storageState = await context.storageState();
    await context.close();
    const entryScript = /<script type="module"[^>]* src="([^"]+)"/.exec(fs.readFileSync(path.join(APP_DIR, 'index.html'), 'utf8'))?.[1];
    const routeFiles: Record<string, string[]> = JSON.parse(fs.readFileSync(path.join(APP_DIR, 'route-preloads.json'), 'utf8')).pages;
    for (const [route, url, heading, read] of [
      ['clients', `/app/clients/${clientId}`, 'Dana Reyes', `/api/v1/contacts/${clientId}`],
      ['quotes', `/app/quotes/${quoteId}`, 'Quote #1', `/api/v1/quotes/${quoteId}`],
    ] as const) {
      // A first visit: nothing cached, no service worker answering in the network's place.
      const fresh = await h.browser.newContext({ serviceWorkers: 'block', storageState });
      const tab = await fresh.newPage();
      await tab.goto(`${h.origin}${url}`);
      await tab.getByRole('heading', { name: heading, level: 1 }).waitFor();
      const loads = await tab.evaluate(() => performance.getEntriesByType('resource').map((e) => ({ path: new URL(e.name).pathname, start: e.startTime, end: (e as PerformanceResourceTiming).responseEnd })));
      const entry = loads.find((l) => l.path === entryScript);
      assert.ok(entry, `${url}: the entry script ${entryScript} loaded`);
      assert.ok(routeFiles[route].length > 0, `${route}: files listed`);
      for (const file of routeFiles[route]) {
        const load = loads.find((l) => l.path === `/app/${file}`);
        assert.ok(load, `${url}: ${file} loaded`);
        assert.ok(load.start < entry.end, `${url}: ${file} asked for at ${load.start} ms, after the entry script arrived at ${entry.end} ms`);
        assert.ok(entry.start <= load.start, `${url}: the entry script asked for at ${entry.start} ms, after ${file} at ${load.start} ms`);
      }
      // The record: asked for once (the page's own read took the preload), before the entry script arrived.
      const reads = loads.filter((l) => l.path === read);
      assert.equal(reads.length, 1, `${url}: ${read} asked for ${reads.length} times`);
      assert.ok(reads[0].start < entry.end, `${url}: ${read} asked for at ${reads[0].start} ms, after the entry script arrived at ${entry.end} ms`);
      await fresh.close();
    }
  });

  test('a record page draws its notes and files in a commit of their own, after its other sections', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    // Each callback of a MutationObserver gathers one task's DOM changes: one React commit.
    await context.addInitScript(`(() => {
      window.__commits = 0;
      window.__headingCommit = {};
      new MutationObserver(() => {
        window.__commits++;
        for (const h of document.querySelectorAll('h2')) if (!(h.textContent in window.__headingCommit)) window.__headingCommit[h.textContent] = window.__commits;
      }).observe(document, { childList: true, subtree: true, characterData: true });
    })();`);
    for (const [url, section] of [
      [`/app/clients/${clientId}`, 'Properties'],
      [`/app/quotes/${quoteId}`, 'Status history'],
    ] as const) {
      await page.goto(`${h.origin}${url}`);
      await page.getByRole('heading', { name: 'Internal notes', level: 2 }).waitFor();
      const commits = await page.evaluate<Record<string, number>>('window.__headingCommit');
      assert.ok(commits[section] && commits['Internal notes'] > commits[section], `${url}: ${JSON.stringify(commits)}`);
      assert.ok(commits.Files >= commits['Internal notes'], `${url}: ${JSON.stringify(commits)}`);
    }
    await context.close();
  });

  test('the header’s menu, notifications and search mount their popovers when first used, the toast layer not before a toast, and no Mantine id is replaced once drawn', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    // React (production too) hands each commit's root to a devtools hook when one is there:
    // the test reads the mounted components from it. And an element's id that changes after
    // it was drawn (Mantine's random ids, set by a second, synchronous render) is counted.
    await context.addInitScript(`(() => {
      ${REACT_ROOT}
      window.__mounted = () => {
        const names = new Set();
        const walk = (f) => { for (; f; f = f.sibling) { const t = f.type; const n = t && (t.displayName || t.name || (t.render && (t.render.displayName || t.render.name))); if (n) names.add(n); walk(f.child); } };
        walk(window.__root.current);
        return [...names];
      };
      window.__idChanges = [];
      new MutationObserver((list) => { for (const m of list) if (m.oldValue) window.__idChanges.push(m.oldValue + ' -> ' + m.target.id); }).observe(document, { subtree: true, attributes: true, attributeFilter: ['id'], attributeOldValue: true });
    })();`);
    await page.goto(`${h.origin}/app/clients/${clientId}`);
    await page.getByRole('textbox', { name: 'Note' }).waitFor(); // a field: Mantine names its label and input by id
    await page.getByRole('button', { name: 'Account' }).waitFor();
    await page.getByRole('combobox', { name: 'Search' }).waitFor();
    await page.waitForTimeout(300);
    const popovers = ['@mantine/core/Menu', '@mantine/core/Popover', '@mantine/core/Combobox', '@mantine/notifications/Notifications'];
    const mounted = async () => (await page.evaluate<string[]>('window.__mounted()')).filter((n) => popovers.includes(n));
    assert.deepEqual(await mounted(), []);
    assert.deepEqual(await page.evaluate<string[]>('window.__idChanges'), []);
    // Used: each opens at the first click or focus, as a mounted one did.
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menu').getByRole('menuitem', { name: 'Account settings' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    assert.equal(await page.evaluate<string>('document.activeElement.textContent'), 'Account', 'the focus is back on "Account"');
    await page.getByRole('button', { name: 'Notifications' }).click();
    await page.getByRole('dialog', { name: 'Notifications' }).getByText('No notifications yet.').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Notifications' }).waitFor({ state: 'detached' });
    assert.equal(await page.evaluate<string | null>('document.activeElement.getAttribute("aria-label")'), 'Notifications', 'the focus is back on "Notifications"');
    await page.getByRole('combobox', { name: 'Search' }).fill('Reyes');
    await page.getByRole('option', { name: /Dana Reyes/ }).waitFor();
    for (const name of ['@mantine/core/Menu', '@mantine/core/Popover', '@mantine/core/Combobox']) assert.ok((await mounted()).includes(name), `${name} mounted once used`);
    assert.ok(!(await mounted()).includes('@mantine/notifications/Notifications'), 'no toast yet');
    assert.deepEqual(await page.evaluate<string[]>('window.__idChanges'), []);
    await context.close();
  });

  test('a read’s answer redraws only what it changed: a client’s new property leaves the Quotes table as it was', async () => {
    const { context, page } = await h.page();
    await h.signIn(page, ws.owner);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    // The current tree, from the root React hands its devtools hook at each commit: the
    // props a table was last drawn with. A table drawn again gets a new props object; one
    // React skipped (its element unchanged, as the React Compiler keeps it) keeps its own.
    await context.addInitScript(`(() => {
      ${REACT_ROOT}
      window.__tableProps = (label) => {
        const stack = [window.__root.current];
        while (stack.length) {
          const f = stack.pop();
          if (f.type === 'table' && f.memoizedProps && f.memoizedProps['aria-label'] === label) return f.memoizedProps;
          if (f.sibling) stack.push(f.sibling);
          if (f.child) stack.push(f.child);
        }
        return null;
      };
    })();`);
    await page.goto(`${h.origin}/app/clients/${clientId}`);
    await page.getByRole('table', { name: 'Quotes' }).waitFor();
    await page.getByRole('heading', { name: 'Internal notes', level: 2 }).waitFor();
    await page.waitForTimeout(300);
    assert.ok(await page.evaluate<boolean>(`(window.__quotesBefore = window.__tableProps('Quotes')) !== null`), 'the Quotes table is in the tree');
    // The page's properties read answers again (the form invalidates it); its quotes do not change.
    await page.getByRole('button', { name: 'Add property' }).click();
    await page.getByLabel('Street').fill('7 Quarry Lane');
    await page.getByRole('button', { name: 'Save property' }).click();
    await page.getByText('7 Quarry Lane').waitFor();
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate<boolean>(`window.__tableProps('Quotes') === window.__quotesBefore`), true, 'the Quotes table was drawn again');
    await context.close();
  });

  test('the note box shows two lines empty and grows with what is typed', async () => {
    const { context, page } = await h.page(375);
    await h.signIn(page, ws.owner, `/app/sign-in?next=${encodeURIComponent(`/clients/${clientId}`)}`);
    const note = page.getByRole('textbox', { name: 'Note' });
    const height = () => note.evaluate((el) => el.getBoundingClientRect().height);
    const lineHeight = await note.evaluate((el) => Number.parseFloat(getComputedStyle(el).lineHeight));
    const empty = await height();
    assert.ok(empty >= 2 * lineHeight && empty < 4 * lineHeight, `empty: ${empty} px for lines of ${lineHeight} px`);
    await note.fill(Array.from({ length: 8 }, (_, i) => `Line ${i + 1}`).join('\n'));
    const full = await height();
    assert.ok(full >= 8 * lineHeight, `eight lines: ${full} px for lines of ${lineHeight} px`);
    await context.close();
  });

  test('Home of a new workspace draws "Get started" and its sections without a layout shift, reads no localStorage, and keeps no closed search list', async () => {
    const fresh = await h.workspace('Shift Gardens'); // nothing done yet: "Get started" shows above the sections
    const { context, page } = await h.page(375);
    await context.addInitScript(`(() => {
      window.__storageReads = 0;
      const getItem = Storage.prototype.getItem;
      Storage.prototype.getItem = function (key) { if (this === window.localStorage) window.__storageReads++; return getItem.call(this, key); };
      window.__shift = 0;
      new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value; }).observe({ type: 'layout-shift', buffered: true });
    })();`);
    await h.signIn(page, fresh.owner);
    await page.getByRole('region', { name: 'Get started' }).or(page.getByRole('heading', { name: 'Get started' })).first().waitFor();
    await page.getByText('Recent activity').waitFor();
    await page.waitForTimeout(500);
    const shift = await page.evaluate<number>('window.__shift');
    assert.ok(shift < 0.01, `layout shift ${shift}`);
    assert.equal(await page.evaluate<number>('window.__storageReads'), 0);
    // The header's search keeps no hidden list in the page while closed (Mantine would
    // position it as the header first draws), and opens one when typed in.
    await page.getByRole('combobox', { name: 'Search' }).waitFor();
    assert.equal(await page.locator('.mantine-Popover-dropdown').count(), 0);
    await page.getByRole('combobox', { name: 'Search' }).fill('Sh');
    await page.getByRole('listbox').waitFor();
    await context.close();
  });
});
