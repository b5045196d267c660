// A node:test reporter that writes only the failed tests, each with its file and
// error, so `scripts/test.ts` can print them again at the end of a run: a CI log
// shown by its tail then names what failed in any part, not only in the last.
import { inspect } from 'node:util';

export default async function* failures(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, line, details } = event.data;
    // A suite fails when a test in it does: its own line would only repeat the test's.
    if (details.type === 'suite' && details.error?.failureType === 'subtestsFailed') continue;
    const where = file ? `${file}${line ? `:${line}` : ''}` : '(no file)';
    const error = inspect(details.error?.cause ?? details.error, { depth: 4, breakLength: 160 });
    // Node's own frames say nothing of the test.
    const ours = error
      .split('\n')
      .filter((l) => !/^\s+at (.*\()?node:/.test(l))
      .join('\n');
    yield `✖ ${name}\n  ${where}\n${ours.replace(/^/gm, '    ')}\n\n`;
  }
}
