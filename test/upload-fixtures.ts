// Test fixtures: real multipart bodies and small but genuine files of every
// accepted type, built byte by byte (no binary files in the repository).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Kysely } from 'kysely';
import { now } from '../src/db/json.ts';
import type { DB } from '../src/db/schema.ts';

export type FormPart = { name: string; value: string } | { name: string; filename: string; type?: string; data: Buffer };

/** A multipart/form-data body, written by hand so names can carry anything a client might send. */
export function multipartBody(parts: FormPart[]): { payload: Buffer; contentType: string } {
  const boundary = `----fieldwork${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`, 'utf8'));
    } else {
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`;
      chunks.push(Buffer.from(head, 'utf8'), part.data, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

const crc = (b: Buffer) => zlib.crc32(b);

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc(body));
  return Buffer.concat([len, body, sum]);
}

/** A valid width x height RGB PNG; `seed` varies the pixels (and so the content hash). */
export function png(width = 3, height = 2, seed = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height, seed & 0xff);
  for (let y = 0; y < height; y++) rows[y * (width * 3 + 1)] = 0; // filter byte
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A baseline JPEG header with an APP0 segment and a start-of-frame giving the size. */
export function jpeg(width = 40, height = 30): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    0x01,
    0x22,
    0x00,
    0x02,
    0x11,
    0x01,
    0x03,
    0x11,
    0x01,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}

/** An extended (VP8X) WebP header. */
export function webp(width = 64, height = 48): Buffer {
  const vp8x = Buffer.alloc(18);
  vp8x.write('VP8X', 0, 'latin1');
  vp8x.writeUInt32LE(10, 4);
  vp8x.writeUIntLE(width - 1, 12, 3);
  vp8x.writeUIntLE(height - 1, 15, 3);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(4 + vp8x.length, 4);
  head.write('WEBP', 8, 'latin1');
  return Buffer.concat([head, vp8x]);
}

export const pdf = (text = 'hello') => Buffer.from(`%PDF-1.4\n1 0 obj << /Title (${text}) >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`, 'latin1');

/** An OLE compound file header (what .doc and .xls are). */
export function cfb(seed = 1): Buffer {
  const b = Buffer.alloc(1024, seed);
  b.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 0);
  return b;
}

/** A stored (uncompressed) zip of `files`. */
export function zip(files: Record<string, string>): Buffer {
  const local: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text, 'utf8');
    const nameBuf = Buffer.from(name, 'utf8');
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt32LE(crc(data), 14);
    h.writeUInt32LE(data.length, 18);
    h.writeUInt32LE(data.length, 22);
    h.writeUInt16LE(nameBuf.length, 26);
    local.push(h, nameBuf, data);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt32LE(crc(data), 16);
    c.writeUInt32LE(data.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(nameBuf.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, nameBuf);
    offset += h.length + nameBuf.length + data.length;
  }
  const centralBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(centralBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, centralBuf, end]);
}

const contentTypes = (main: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/doc.xml" ContentType="${main}.main+xml"/></Types>`;
export const docx = () =>
  zip({ '[Content_Types].xml': contentTypes('application/vnd.openxmlformats-officedocument.wordprocessingml.document'), 'word/document.xml': '<w:document/>' });
export const xlsx = () =>
  zip({ '[Content_Types].xml': contentTypes('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'), 'xl/workbook.xml': '<workbook/>' });

/** Every regular file under `dir` (staging included): the no-orphans count. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}

let sheetWeek = 0;

/** Parents whose routes belong to other modules, inserted directly. */
export async function insertParent(
  db: Kysely<DB>,
  workspaceId: number,
  type: 'request' | 'quote' | 'job' | 'invoice' | 'event' | 'timesheet',
  createdBy: string | null,
): Promise<number> {
  const at = now();
  if (type === 'event') {
    const event = {
      workspace_id: workspaceId,
      start_date: '2030-01-02',
      end_date: '2030-01-02',
      all_day: 0,
      multi_day: 0,
      type: 'appointment',
      status: 'scheduled',
    };
    return (
      await db
        .insertInto('events')
        .values({ ...event, created_by: createdBy, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  }
  if (type === 'timesheet') {
    const week = new Date(Date.UTC(2030, 0, 7) + sheetWeek++ * 7 * 86_400_000).toISOString().slice(0, 10);
    const sheet = {
      workspace_id: workspaceId,
      user_id: createdBy ?? '00000000-0000-4000-8000-000000000000',
      start_date: week,
      end_date: week,
      status: 'draft',
      total_time: 0,
    };
    return (
      await db
        .insertInto('timesheets')
        .values({ ...sheet, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  }
  const base = { workspace_id: workspaceId, created_by: createdBy, created_at: at, updated_at: at, custom_fields: null };
  const pricing = { line_items: '[]', discount: 0, discount_unit: '%', deposit: 0, deposit_unit: '%', tax_rate: 0, tax_rate_id: null, total: 0 };
  const number = Math.floor(Math.random() * 1e9);
  if (type === 'request') {
    return (
      await db
        .insertInto('requests')
        .values({ ...base, number, status: 'new', data: null })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  }
  if (type === 'quote') {
    return (
      await db
        .insertInto('quotes')
        .values({ ...base, ...pricing, number, status: 'draft' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  }
  if (type === 'job') {
    return (
      await db
        .insertInto('jobs')
        .values({ ...base, ...pricing, number, status: 'draft', type: 'one-off', expenses: '[]' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  }
  return (
    await db
      .insertInto('invoices')
      .values({ ...base, ...pricing, number, status: 'draft', type: 'one-off', payment_terms: 'due_on_receipt', event_ids: '[]' })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

/** An upload link with its stored-file row (no bytes on disk): for suites that only need the record. */
export async function insertUploadLink(db: Kysely<DB>, workspaceId: number, moduleType: string, moduleId: number, bucket = 'workspaces'): Promise<number> {
  const at = now();
  const file = await db
    .insertInto('stored_files')
    .values({
      workspace_id: workspaceId,
      bucket,
      path: `${workspaceId}/${randomBytes(16).toString('hex')}.pdf`,
      sha256: randomBytes(32).toString('hex'),
      size: 1,
      mime_type: 'application/pdf',
      original_file_name: 'fixture.pdf',
      meta: null,
      created_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const link = await db
    .insertInto('upload_links')
    .values({
      workspace_id: workspaceId,
      file_id: file.id,
      module_type: moduleType,
      module_id: moduleId,
      name: 'fixture.pdf',
      description: null,
      category: 'attachment',
      original_file_name: 'fixture.pdf',
      owner_id: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return link.id;
}
