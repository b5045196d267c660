import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { createDb, directReadOf } from './database.ts';

// F183: both SQLite connections (the writer Kysely uses and the reader of direct reads)
// keep SQLite's own 2 MB page cache, not better-sqlite3's 16 MB.
test('SQLite: the writer and the reader each cache at most 2 MB of pages', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-cache-'));
  const database = createDb(`sqlite:${path.join(dir, 'cache.db')}`);
  try {
    const writer = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db);
    assert.deepEqual(writer.rows, [{ cache_size: -2000 }]);
    const reader = await directReadOf(database.db)!('cache', 'pragma cache_size', []);
    assert.deepEqual(reader, [{ cache_size: -2000 }]);
  } finally {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
