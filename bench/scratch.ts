// What the worker benchmarks share: a scratch database (a temporary SQLite file,
// or a database created on BENCH_DATABASE_URL and dropped after), and a receiver
// in its own process that prints its port, then `count N` every 50 ms.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import pg from 'pg';

export async function scratchDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  const pgBase = process.env.BENCH_DATABASE_URL;
  if (!pgBase) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-bench-'));
    return { url: `sqlite:${path.join(dir, 'bench.db')}`, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `fieldwork_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgBase });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const u = new URL(pgBase);
  u.pathname = `/${name}`;
  const cleanup = async () => {
    // Not `with (force)`: the pool's last connections may still be closing; wait for them instead.
    for (let i = 0; ; i++) {
      try {
        await admin.query(`drop database if exists "${name}"`);
        break;
      } catch (err) {
        if (i === 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await admin.end();
  };
  return { url: u.toString(), cleanup };
}

export interface Receiver {
  port: string;
  /** What the receiver has counted so far. */
  received(): number;
  child: ChildProcess;
}

/** Runs `script` (CommonJS, from the project root) that prints its port, then `count N` lines. */
export async function startReceiver(script: string): Promise<Receiver> {
  const child = spawn(process.execPath, ['-e', script], { cwd: path.resolve(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! });
  const port = await new Promise<string>((resolve) => lines.once('line', resolve));
  let count = 0;
  lines.on('line', (line) => {
    if (line.startsWith('count ')) count = Number(line.slice(6));
  });
  return { port, received: () => count, child };
}
