import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

// The floors of docs/architecture.md, lowest first. A source file may import from
// its own floor or a lower one, never from a higher one.
const src = path.resolve(import.meta.dirname, '../src');
const FLOORS: [string, RegExp][] = [
  ['kernel', /^(kernel\/|config\.ts$)/],
  ['domain', /^domain\//],
  ['db', /^db\//],
  ['storage/outbox', /^(storage|outbox)\//],
  ['http', /^http\//],
  ['modules', /^modules\//],
  ['app', /^(app\.ts|main\.ts|redis\.ts|cli\/)/],
];

function floorOf(rel: string): number {
  const i = FLOORS.findIndex(([, re]) => re.test(rel));
  assert.ok(i >= 0, `src/${rel} is on no floor: add its folder to docs/architecture.md and this test`);
  return i;
}

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.test.ts'))
    .map((f) => f.split(path.sep).join('/'));
}

/** Every `import ... from './x'` and `import('./x')` of a file, resolved against src/. */
export function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(src, file), 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return specs.map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)));
}

test('layers: no source file imports from a higher floor', () => {
  const crossings: string[] = [];
  for (const file of sources(src)) {
    const own = floorOf(file);
    for (const target of importsOf(file)) {
      if (target.startsWith('..')) {
        crossings.push(`src/${file} imports ${target} (outside src/)`);
        continue;
      }
      const theirs = floorOf(target);
      if (theirs > own) crossings.push(`src/${file} (${FLOORS[own][0]}) imports src/${target} (${FLOORS[theirs][0]})`);
    }
  }
  assert.deepEqual(crossings, []);
});

test('layers: the check itself sees a crossing', () => {
  // A domain file importing the database layer must be caught by the rule above.
  assert.ok(floorOf('domain/x.ts') < floorOf('db/schema.ts'));
  assert.ok(floorOf('kernel/errors.ts') < floorOf('domain/line-items.ts'));
  assert.ok(floorOf('http/auth.ts') < floorOf('modules/keys/keys.service.ts'));
  assert.deepEqual(importsOf('http/auth.ts').filter((i) => i.startsWith('modules/')), []);
});

// Queries live in src/db and the modules' *.repo.ts files (docs/architecture.md): a
// service or a route file calls a repository, it does not build SQL.
const QUERY_BUILDER = /\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/;

test('layers: no service or route file under src/modules builds SQL', () => {
  const offenders = sources(src).filter(
    (f) => f.startsWith('modules/') && /\.(service|routes)\.ts$/.test(f) && QUERY_BUILDER.test(fs.readFileSync(path.join(src, f), 'utf8')),
  );
  assert.deepEqual(offenders, []);
  // The pattern sees the forms it names.
  assert.ok(QUERY_BUILDER.test("db.selectFrom('users')") && QUERY_BUILDER.test('sql`now()`') && !QUERY_BUILDER.test('selectFromList('));
});

// `as never` and `as unknown as` switch the type checker off: src/ has none.
const CASTS = /\bas (never|unknown as)\b/g;

test('layers: no `as never` or `as unknown as` in src/', () => {
  const files = fs
    .readdirSync(src, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(path.sep).join('/'));
  const over: string[] = [];
  for (const f of files) {
    const count = fs.readFileSync(path.join(src, f), 'utf8').match(CASTS)?.length ?? 0;
    if (count > 0) over.push(`src/${f}: ${count}`);
  }
  assert.deepEqual(over, []);
});
