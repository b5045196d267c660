// F342: the reporter that `scripts/test.ts` prints again at the end of a run lists each
// failed test with its file and error, and nothing of the tests that passed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const reporter = path.resolve(import.meta.dirname, '../scripts/failures-reporter.mjs');

test('the failures reporter names a failed test, its file and its error, and skips the passing test and its suite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-failures-'));
  try {
    const file = path.join(dir, 'sample.test.mjs');
    fs.writeFileSync(
      file,
      `import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
describe('a suite', () => {
  test('one that breaks', () => assert.equal(1, 2));
  test('one that passes', () => {});
});
`,
    );
    const out = path.join(dir, 'failures.txt');
    // A run of its own: without NODE_TEST_CONTEXT, which marks a child of this test run.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, ['--test', '--test-reporter=dot', '--test-reporter-destination=stdout', `--test-reporter=${reporter}`, `--test-reporter-destination=${out}`, file], { encoding: 'utf8', env });
    assert.equal(r.status, 1, r.stderr);
    const text = fs.readFileSync(out, 'utf8');
    assert.match(text, /^✖ one that breaks\n {2}.*sample\.test\.mjs/m);
    assert.match(text, /1 !== 2/);
    assert.equal(text.includes('one that passes'), false);
    assert.equal(text.includes('✖ a suite'), false, 'the suite that failed only through its test is not listed again');
    assert.equal(/^\s+at .*node:internal/m.test(text), false, "Node's own frames are left out");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
