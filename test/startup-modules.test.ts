import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

// F185: the API process loads what it serves with. prom-client (1.6 MB of heap) only with
// METRICS_PORT, the command line's parser (commander, 0.7 MB) never, and the AWS SDK
// not at start, even with STORAGE_URL: it loads with the first file the bucket serves (F254). The server is
// started as `npm start` starts it (src/main.ts), then asked which of them it loaded.
const root = path.resolve(import.meta.dirname, '..');
const probe = `
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
await import(pathToFileURL(${JSON.stringify(path.join(root, 'src/main.ts'))}).href);
const files = Object.keys(createRequire(import.meta.url).cache);
const loaded = (name) => files.some((f) => f.includes(\`/node_modules/\${name}/\`));
process.stderr.write(JSON.stringify({ promClient: loaded('prom-client'), commander: loaded('commander'), awsSdk: loaded('@aws-sdk/client-s3') }) + '\\n');
process.exit(0);
`;

async function modulesLoaded(env: Record<string, string>): Promise<{ promClient: boolean; commander: boolean; awsSdk: boolean }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-modules-'));
  try {
    const { stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'modules.db')}`, PORT: '0', HOST: '127.0.0.1', WORKER: 'off', LOG_LEVEL: 'warn', ...env },
    });
    return JSON.parse(stderr.trim().split('\n').at(-1)!);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('the API process loads prom-client only with METRICS_PORT, commander never, the AWS SDK not at start', async () => {
  assert.deepEqual(await modulesLoaded({ METRICS_PORT: '' }), { promClient: false, commander: false, awsSdk: false });
  assert.deepEqual(await modulesLoaded({ METRICS_PORT: '0' }), { promClient: true, commander: false, awsSdk: false });
  assert.deepEqual(await modulesLoaded({ METRICS_PORT: '', STORAGE_URL: 's3://files/fieldwork', S3_ENDPOINT: 'http://127.0.0.1:9' }), { promClient: false, commander: false, awsSdk: false });
});
