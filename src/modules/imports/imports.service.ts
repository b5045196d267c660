import fs from 'node:fs';
import { now } from '../../db/json.ts';
import { type AuthContext, requireScope } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { type Detail, notFound, ValidationError } from '../../kernel/errors.ts';
import { newKey, PRIVATE_BUCKET, type Storage } from '../../storage/storage.ts';
import type { IncomingUpload } from '../uploads/uploads.service.ts';
import { sniffCsv } from './csv-source.ts';
import { fieldOfHeader, IMPORT_FIELDS, IMPORT_KINDS, type ImportKind, REQUIRED_FIELDS } from './import-fields.ts';
import { findImport, type ImportRow, insertImport } from './imports.repo.ts';
import type { Import } from './imports.schemas.ts';

/** E28: a CSV up to 20 MB. */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
/** F305: the errors an import lists (every skipped row is still counted). */
export const MAX_LISTED_ERRORS = 1000;

/** The scope an import of this kind needs: the one its records' own writes need. */
export const importScope = (kind: ImportKind, access: 'read' | 'write') => `${kind === 'clients' ? 'contacts' : 'services'}:${access}`;

export function importView(row: ImportRow): Import {
  return {
    id: row.id,
    kind: row.kind as ImportKind,
    status: row.status as Import['status'],
    dry_run: Boolean(row.dry_run),
    rows: row.rows,
    processed: row.processed,
    created: row.created,
    updated: row.updated,
    skipped: row.skipped,
    errors: JSON.parse(row.errors),
    failure: row.failure,
    created_at: row.created_at,
    finished_at: row.finished_at,
  };
}

const invalid = (details: Detail[]) => new ValidationError(details);

/**
 * Each column's field (null: skipped), from the mapping and else the header's name.
 * Refuses a mapping that is not an object of the file's columns to known fields, a
 * column no field matches, two columns for one field, and a missing required field.
 */
export function columnsOf(kind: ImportKind, header: string[], mappingText: string | undefined): (string | null)[] {
  const fields = IMPORT_FIELDS[kind];
  let mapping: Record<string, unknown> = {};
  if (mappingText !== undefined && mappingText.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(mappingText);
    } catch {}
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw invalid([{ path: ['mapping'], message: 'must be a JSON object of column header to field' }]);
    mapping = parsed as Record<string, unknown>;
  }
  const details: Detail[] = [];
  for (const [column, field] of Object.entries(mapping)) {
    if (!header.includes(column)) details.push({ path: ['mapping', column], message: 'is not a column of the file' });
    else if (field !== null && (typeof field !== 'string' || !fields.includes(field)))
      details.push({ path: ['mapping', column], message: `must be one of: ${fields.join(', ')}, or null to skip the column` });
  }
  if (details.length) throw invalid(details);
  const columns = header.map((h) => (Object.hasOwn(mapping, h) ? (mapping[h] as string | null) : fieldOfHeader(kind, h)));
  const unknown = header.filter((h, i) => columns[i] === null && !Object.hasOwn(mapping, h) && h !== '');
  if (unknown.length) {
    details.push({
      path: ['file'],
      message: `has unknown columns: ${unknown.map((h) => `"${h}"`).join(', ')} (map each to one of ${fields.join(', ')}, or to null to skip it)`,
    });
  }
  const seen = new Map<string, string>();
  header.forEach((h, i) => {
    const f = columns[i];
    if (f === null) return;
    if (seen.has(f)) details.push({ path: ['mapping'], message: `columns "${seen.get(f)}" and "${h}" both fill ${f}` });
    else seen.set(f, h);
  });
  const missing = REQUIRED_FIELDS[kind].filter((f) => !seen.has(f));
  if (missing.length) details.push({ path: ['file'], message: `has no column for ${missing.join(', ')}` });
  if (details.length) throw invalid(details);
  return columns;
}

/** A queued import's row: the API's and `fieldwork import`'s. */
export function newImport(workspaceId: number, userId: string | null, kind: ImportKind, dryRun: boolean, columns: (string | null)[], fileKey: string) {
  const at = now();
  return {
    workspace_id: workspaceId,
    kind,
    status: 'queued',
    dry_run: dryRun ? 1 : 0,
    mapping: JSON.stringify(columns),
    file_key: fileKey,
    created_by: userId,
    rows: 0,
    processed: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    errors: '[]',
    attempts: 0,
    created_at: at,
    updated_at: at,
  };
}

export function importsService({ db }: AppContext, storage: Storage) {
  return {
    /** Checks the form and the file's header, stores the file and queues the import (202). */
    async create(auth: AuthContext, incoming: IncomingUpload): Promise<Import> {
      const { fields, file } = incoming;
      const kind = fields.kind as ImportKind;
      if (!IMPORT_KINDS.includes(kind)) throw invalid([{ path: ['kind'], message: `must be one of: ${IMPORT_KINDS.join(', ')}` }]);
      requireScope(auth, importScope(kind, 'write'));
      const details: Detail[] = [];
      if (!file) details.push({ path: ['file'], message: 'is required' });
      const dryRun = fields.dry_run ?? 'false';
      if (!['true', 'false', '1', '0', ''].includes(dryRun)) details.push({ path: ['dry_run'], message: 'must be true or false' });
      if (details.length) throw invalid(details);
      if (file!.tooLarge) throw invalid([{ path: ['file'], message: `file must be at most ${MAX_IMPORT_BYTES / (1024 * 1024)} MB` }]);
      const layout = await sniffCsv(fs.createReadStream(file!.staged.file));
      const columns = columnsOf(kind, layout.header, fields.mapping);
      const key = newKey(auth.workspaceId, 'csv');
      await storage.put(file!.staged, PRIVATE_BUCKET, key);
      try {
        return await transact(db, auth, async (trx) => {
          const row = await insertImport(trx, newImport(auth.workspaceId, auth.userId, kind, dryRun === 'true' || dryRun === '1', columns, key));
          return importView(row);
        });
      } catch (err) {
        await storage.remove(PRIVATE_BUCKET, key);
        throw err;
      }
    },

    async get(auth: AuthContext, id: number): Promise<Import> {
      const row = await findImport(db, auth.workspaceId, id);
      if (!row) throw notFound('Import');
      requireScope(auth, importScope(row.kind as ImportKind, 'read'));
      return importView(row);
    },
  };
}
