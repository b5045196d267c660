import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { bodyChecker } from '../../http/validation.ts';
import { messageOf } from '../../kernel/errors.ts';
import type { TaskQueue, WorkerLog } from '../../outbox/worker.ts';
import { PRIVATE_BUCKET, type Storage } from '../../storage/storage.ts';
import type { ContactCreate } from '../contacts/contacts.schemas.ts';
import { createContacts, updateContactsIn } from '../contacts/contacts.service.ts';
import { createLinkedProperties } from '../properties/properties.service.ts';
import type { ServiceCreate } from '../services/services.schemas.ts';
import { createServiceIn, updateServiceIn } from '../services/services.service.ts';
import { type CsvRow, csvRows, sniffCsv } from './csv-source.ts';
import { bodyOf, fieldOfPath, type ImportKind, ROW_SCHEMAS } from './import-fields.ts';
import { claimedImport, contactsByEmail, type ImportRow, importsDue, saveImport, servicesByName } from './imports.repo.ts';
import type { Import } from './imports.schemas.ts';
import { MAX_LISTED_ERRORS } from './imports.service.ts';

// E28 in the worker: an import is read from its stored file and written in batches, each
// batch's rows and the import's progress in one transaction (F306). A worker killed
// mid-batch loses the whole batch, never half a row; the next claim resumes after the
// last committed batch. An import that keeps dying is marked failed after three starts.

const BATCH = 250;
const LEASE_MS = 120_000;
const MAX_STARTS = 3;

const checks = { clients: bodyChecker(ROW_SCHEMAS.clients), services: bodyChecker(ROW_SCHEMAS.services) };

class LeaseLost extends Error {}

interface Tally {
  created: number;
  updated: number;
  skipped: number;
  errors: Import['errors'];
}

/** What a batch does with its valid rows: writes them, or (a dry run) only counts. */
interface Writer {
  /** The record a row's key (email or service name) matches: in the workspace, or made earlier in this import. */
  apply(trx: Kysely<DB>, rows: { line: number; body: Record<string, unknown> }[], tally: Tally): Promise<void>;
}

function clientWriter(job: ImportRow, dryRun: boolean, madeInDryRun: Set<string>): Writer {
  return {
    async apply(trx, rows, tally) {
      const emailOf = (b: Record<string, unknown>) => (typeof b.email === 'string' ? b.email.toLowerCase() : '');
      const existing = await contactsByEmail(trx, job.workspace_id, [...new Set(rows.map((r) => emailOf(r.body)).filter(Boolean))]);
      if (dryRun) {
        for (const { body } of rows) {
          const email = emailOf(body);
          if (email && (existing.has(email) || madeInDryRun.has(email))) tally.updated++;
          else {
            tally.created++;
            if (email) madeInDryRun.add(email);
          }
        }
        return;
      }
      // F310: rows are sorted in memory into new clients (one bulk create) and updates of
      // clients that exist or that an earlier row of this batch makes (applied after, in row order).
      type Target = { id: number; hasProperty: boolean };
      const creates: ContactCreate[] = [];
      const made: Target[] = [];
      const updates: { target: Target; body: ContactCreate }[] = [];
      for (const { body } of rows) {
        const email = emailOf(body);
        const match = email ? existing.get(email) : undefined;
        if (match) updates.push({ target: match, body: body as ContactCreate });
        else {
          const target = { id: 0, hasProperty: Boolean(body.property) };
          creates.push(body as ContactCreate);
          made.push(target);
          if (email) existing.set(email, target);
        }
      }
      const contacts = await createContacts(trx, job.workspace_id, job.created_by, creates);
      contacts.forEach((c, i) => {
        made[i].id = c.id;
      });
      tally.created += creates.length;
      // F301: the same email updates the client; its first property is added only if it has none.
      const properties: { contactId: number; body: NonNullable<ContactCreate['property']> }[] = [];
      const changes = updates.map(({ target, body: { property, ...fields } }) => {
        if (property && !target.hasProperty) {
          properties.push({ contactId: target.id, body: property });
          target.hasProperty = true;
        }
        return { id: target.id, body: fields };
      });
      await updateContactsIn(trx, job.workspace_id, changes);
      await createLinkedProperties(trx, job.workspace_id, properties);
      tally.updated += updates.length;
    },
  };
}

function serviceWriter(job: ImportRow, dryRun: boolean, madeInDryRun: Set<string>): Writer {
  return {
    async apply(trx, rows, tally) {
      const nameOf = (b: Record<string, unknown>) => String(b.name).toLowerCase();
      const existing = await servicesByName(trx, job.workspace_id, [...new Set(rows.map((r) => nameOf(r.body)))]);
      for (const { body } of rows) {
        const name = nameOf(body);
        const match = existing.get(name);
        if (dryRun) {
          if (match !== undefined || madeInDryRun.has(name)) tally.updated++;
          else {
            tally.created++;
            madeInDryRun.add(name);
          }
        } else if (match !== undefined) {
          await updateServiceIn(trx, job.workspace_id, match, body as ServiceCreate); // F301: the same name updates
          tally.updated++;
        } else {
          existing.set(name, await createServiceIn(trx, job.workspace_id, body as ServiceCreate));
          tally.created++;
        }
      }
    },
  };
}

/** One batch: each row checked by the API's own schema, the valid ones written, the progress saved, all in one transaction. */
async function runBatch(
  db: Kysely<DB>,
  job: ImportRow,
  owner: string,
  columns: (string | null)[],
  batch: CsvRow[],
  writer: Writer,
  tally: Tally,
  processed: number,
) {
  const kind = job.kind as ImportKind;
  const valid: { line: number; body: Record<string, unknown> }[] = [];
  const next: Tally = { ...tally, errors: [...tally.errors] };
  for (const { cells, line } of batch) {
    const record: Record<string, string> = {};
    columns.forEach((field, i) => {
      if (field !== null && cells[i] !== undefined) record[field] = cells[i];
    });
    const body = bodyOf(kind, record);
    const problems = checks[kind](body);
    if (!problems.length) {
      valid.push({ line, body });
      continue;
    }
    next.skipped++;
    const listed = new Set<string>();
    for (const p of problems) {
      const field = fieldOfPath(p.path) || 'row';
      if (listed.has(field) || next.errors.length >= MAX_LISTED_ERRORS) continue;
      listed.add(field);
      next.errors.push({ row: line, field, message: p.message });
    }
  }
  await db.transaction().execute(async (trx) => {
    await writer.apply(trx, valid, next);
    const saved = await saveImport(trx, job.id, owner, {
      processed: processed + batch.length,
      created: next.created,
      updated: next.updated,
      skipped: next.skipped,
      errors: JSON.stringify(next.errors),
      updated_at: now(),
      locked_until: new Date(Date.now() + LEASE_MS).toISOString(),
    });
    if (!saved) throw new LeaseLost();
  });
  Object.assign(tally, next);
}

export async function runImport(db: Kysely<DB>, storage: Storage, id: number, owner: string, log?: WorkerLog): Promise<void> {
  const job = await claimedImport(db, id, owner);
  if (!job) return;
  const finish = (status: 'done' | 'failed', failure: string | null) =>
    saveImport(db, id, owner, { status, failure, finished_at: now(), updated_at: now(), locked_by: null, locked_until: null });
  if (job.attempts >= MAX_STARTS) {
    await finish('failed', `stopped ${job.attempts} times before finishing; rows up to ${job.processed} were imported`);
    return;
  }
  await saveImport(db, id, owner, { status: 'running', attempts: job.attempts + 1, updated_at: now() });
  const open = async () => {
    const file = await storage.open(PRIVATE_BUCKET, job.file_key);
    if (!file) throw new Error('the uploaded file is gone');
    return file.stream;
  };
  try {
    const layout = await sniffCsv(await open());
    let total = job.rows;
    if (!total) {
      for await (const _ of csvRows(await open(), layout)) total++;
      if (!(await saveImport(db, id, owner, { rows: total, updated_at: now() }))) throw new LeaseLost();
    }
    const columns = JSON.parse(job.mapping ?? '[]') as (string | null)[];
    const dryRun = Boolean(job.dry_run);
    const made = new Set<string>();
    const writer = job.kind === 'clients' ? clientWriter(job, dryRun, made) : serviceWriter(job, dryRun, made);
    const tally: Tally = { created: job.created, updated: job.updated, skipped: job.skipped, errors: JSON.parse(job.errors) };
    let processed = job.processed;
    let seen = 0;
    let batch: CsvRow[] = [];
    for await (const row of csvRows(await open(), layout)) {
      if (++seen <= job.processed) continue; // committed by an earlier run
      batch.push(row);
      if (batch.length === BATCH) {
        await runBatch(db, job, owner, columns, batch, writer, tally, processed);
        processed += batch.length;
        batch = [];
      }
    }
    if (batch.length) await runBatch(db, job, owner, columns, batch, writer, tally, processed);
    await finish('done', null);
    await storage.remove(PRIVATE_BUCKET, job.file_key).catch(() => {}); // what remains is its report
  } catch (err) {
    if (err instanceof LeaseLost) return; // another worker holds it now
    log?.error({ err, import: id }, 'import failed');
    await finish('failed', messageOf(err));
  }
}

/** E28's queue for the worker. */
export const importTask = (db: Kysely<DB>, storage: Storage, log?: WorkerLog): TaskQueue => ({
  table: 'imports',
  ready: importsDue,
  leaseMs: LEASE_MS,
  maxInFlight: 1,
  run: (id, owner) => runImport(db, storage, id, owner, log),
});
