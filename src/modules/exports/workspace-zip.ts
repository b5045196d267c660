import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import yazl from 'yazl';
import type { ListParams, PageResult } from '../../db/list-query.ts';
import type { DB } from '../../db/schema.ts';
import { type Bucket, isBucket, type Storage } from '../../storage/storage.ts';
import { listContacts } from '../contacts/contacts.repo.ts';
import { listEvents } from '../events/events.repo.ts';
import { listInvoices } from '../invoices/invoices.repo.ts';
import { listJobs } from '../jobs/jobs.repo.ts';
import { listProperties } from '../properties/properties.repo.ts';
import { listTemplates } from '../quote-templates/quote-templates.repo.ts';
import { listQuotes } from '../quotes/quotes.repo.ts';
import { listRequests } from '../requests/requests.repo.ts';
import { listServices } from '../services/services.repo.ts';
import { listTaxRates } from '../tax-rates/tax-rates.repo.ts';
import { listTimeEntries } from '../time-entries/time-entries.repo.ts';
import { listTimesheets } from '../timesheets/timesheets.repo.ts';
import { storedFilesAfter, uploadLinksAfter } from './exports.repo.ts';

// E29: the whole workspace as one ZIP, streamed (yazl; F308): one JSON array per
// resource in the list API's own shapes, read a page at a time through the same list
// queries; the uploaded files under `files/`; `manifest.json` last, with the counts.
// Only the entry being written is ever in memory, never the workspace.

/** The export format's version, in the manifest: a reader checks it before reading. */
export const EXPORT_SCHEMA_VERSION = 1;
const PAGE = 500;

type Lister = (
  db: Kysely<DB>,
  workspaceId: number,
  q: ListParams & { sort_by: 'created_at'; sort_direction: 'asc'; page: number; per_page: number },
) => Promise<PageResult<object>>;

/** Resource name (its file and its API path) -> its list query. */
const RESOURCES: Record<string, Lister> = {
  contacts: listContacts,
  properties: listProperties,
  requests: listRequests,
  quotes: listQuotes,
  jobs: listJobs,
  invoices: listInvoices,
  events: listEvents,
  'time-entries': listTimeEntries,
  timesheets: listTimesheets,
  services: listServices,
  'tax-rates': listTaxRates,
  'quote-templates': listTemplates,
};

/** JSON array text of an async sequence of records, one per line. */
async function* jsonArray(records: AsyncIterable<object>, count: (n: number) => void): AsyncGenerator<string> {
  let n = 0;
  yield '[';
  for await (const r of records) yield `${n++ ? ',' : ''}\n${JSON.stringify(r)}`;
  yield n ? '\n]\n' : ']\n';
  count(n);
}

async function* pages(list: Lister, db: Kysely<DB>, workspaceId: number) {
  for (let page = 1; ; page++) {
    const { rows } = await list(db, workspaceId, { page, per_page: PAGE, sort_by: 'created_at', sort_direction: 'asc' });
    yield* rows;
    if (rows.length < PAGE) return;
  }
}

async function* keyset<R extends { id?: number; link_id?: number }>(read: (afterId: number) => Promise<R[]>) {
  let after = 0;
  for (;;) {
    const rows = await read(after);
    yield* rows;
    if (rows.length < PAGE) return;
    after = Number(rows.at(-1)!.id ?? rows.at(-1)!.link_id);
  }
}

/** A stored file's place in the ZIP: `files/<file id>-<its name, made safe>`. */
const zipPathOf = (f: { id: number; original_file_name: string }) =>
  `files/${f.id}-${
    path
      .basename(f.original_file_name)
      .replace(/[^\w.\- ]+/g, '_')
      .slice(0, 100) || 'file'
  }`;

export interface WorkspaceZip {
  stream: Readable;
  /** Resolves once the ZIP is written: records per resource, and files. */
  counts: Promise<Record<string, number>>;
}

export function workspaceZip(db: Kysely<DB>, storage: Storage, workspaceId: number): WorkspaceZip {
  const zip = new yazl.ZipFile();
  const counts: Record<string, number> = {};
  const lazy = (name: string, make: () => Readable) => zip.addReadStreamLazy(name, { compress: true }, (cb) => cb(null, make()));
  for (const [name, list] of Object.entries(RESOURCES)) {
    lazy(`${name}.json`, () => Readable.from(jsonArray(pages(list, db, workspaceId), (n) => (counts[name] = n))));
  }
  lazy('uploads.json', () =>
    Readable.from(
      jsonArray(
        (async function* () {
          for await (const { file_name, ...link } of keyset((after) => uploadLinksAfter(db, workspaceId, after, PAGE))) {
            yield { ...link, file_path: zipPathOf({ id: link.file_id, original_file_name: file_name }) };
          }
        })(),
        (n) => (counts.uploads = n),
      ),
    ),
  );
  const done = (async () => {
    // Each file's entry is added as its page is read; its bytes are opened only when yazl reaches it.
    let files = 0;
    for await (const f of keyset((after) => storedFilesAfter(db, workspaceId, after, PAGE))) {
      if (!isBucket(f.bucket)) continue;
      const name = zipPathOf(f);
      zip.addReadStreamLazy(name, { compress: false }, (cb) => {
        storage.open(f.bucket as Bucket, f.path).then(
          (o) => cb(null, o?.stream ?? Readable.from([])),
          (err) => cb(err, Readable.from([])),
        );
      });
      files++;
    }
    counts.files = files;
    lazy('manifest.json', () =>
      Readable.from([
        `${JSON.stringify({ schema_version: EXPORT_SCHEMA_VERSION, workspace_id: workspaceId, exported_at: new Date().toISOString(), counts }, null, 2)}\n`,
      ]),
    );
    zip.end();
  })();
  const stream = new PassThrough();
  done.catch((err) => stream.destroy(err));
  zip.outputStream.on('error', (err) => stream.destroy(err));
  zip.outputStream.pipe(stream);
  const finished = new Promise<Record<string, number>>((resolve, reject) => {
    stream.once('end', () => resolve(counts));
    stream.once('close', () => resolve(counts));
    stream.once('error', reject);
  });
  return { stream, counts: done.then(() => finished) };
}
