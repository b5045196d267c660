import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { messageOf } from '../kernel/errors.ts';
import { workspaceZip } from '../modules/exports/workspace-zip.ts';
import { sniffCsv } from '../modules/imports/csv-source.ts';
import { IMPORT_KINDS, type ImportKind } from '../modules/imports/import-fields.ts';
import { runImport } from '../modules/imports/import-run.ts';
import { findImport, insertImport } from '../modules/imports/imports.repo.ts';
import { columnsOf, importView, MAX_IMPORT_BYTES, newImport } from '../modules/imports/imports.service.ts';
import { storageFromConfig } from '../storage/drivers.ts';
import { newKey, PRIVATE_BUCKET } from '../storage/storage.ts';
import { UrlSigner } from '../storage/url-signer.ts';
import { CliError, jsonOption, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';

// OPERATOR.md `fieldwork import` and `fieldwork export` (E28, E29): the API's import and
// export, run in this process instead of the worker, with the same checks and files.

const CLI_OWNER = `cli-${process.pid}`;

export function importCommand(): Command {
  return new Command('import')
    .description('import clients or price book services from a CSV file, as POST /api/v1/imports does, and wait for the result')
    .addOption(workspaceOption())
    .addOption(new Option('--kind <kind>', 'what the rows are').choices([...IMPORT_KINDS]).makeOptionMandatory())
    .addOption(new Option('--file <csv>', 'the CSV file').makeOptionMandatory())
    .addOption(new Option('--mapping <json>', 'JSON {"column header": "field"}; null skips a column'))
    .addOption(new Option('--dry-run', 'write nothing; report what would happen'))
    .addOption(jsonOption())
    .action(async (opts: { workspace: number; kind: ImportKind; file: string; mapping?: string; dryRun?: boolean; json?: boolean }) => {
      if (!fs.existsSync(opts.file)) throw new CliError(`import: no file at ${opts.file}`);
      const config = loadConfig();
      const result = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        const storage = storageFromConfig(config, new UrlSigner(db), () => config.publicUrl);
        let columns: (string | null)[];
        try {
          columns = columnsOf(opts.kind, (await sniffCsv(fs.createReadStream(opts.file))).header, opts.mapping);
        } catch (err) {
          throw new CliError(`import: ${messageOf(err)}`);
        }
        const staged = await storage.stage(fs.createReadStream(opts.file), MAX_IMPORT_BYTES);
        if (staged.truncated) {
          await storage.discard(staged);
          throw new CliError(`import: file must be at most ${MAX_IMPORT_BYTES / (1024 * 1024)} MB`);
        }
        const key = newKey(opts.workspace, 'csv');
        await storage.put(staged, PRIVATE_BUCKET, key);
        // Held by this process from the start: a worker claims it only if this process dies.
        const row = await insertImport(db, {
          ...newImport(opts.workspace, null, opts.kind, Boolean(opts.dryRun), columns, key),
          locked_by: CLI_OWNER,
          locked_until: new Date(Date.now() + 120_000).toISOString(),
        });
        await runImport(db, storage, row.id, CLI_OWNER);
        return importView((await findImport(db, opts.workspace, row.id))!);
      });
      const { id, kind, status, rows, created, updated, skipped, errors } = result;
      print(opts, {
        json: { import: { id, kind, status, rows, created, updated, skipped, errors } },
        text: `Import ${id} ${status}: ${rows} rows, ${created} created, ${updated} updated, ${skipped} skipped.${errors.map((e) => `\n  line ${e.row}: ${e.field} ${e.message}`).join('')}`,
      });
      if (status === 'failed') process.exitCode = 1;
    });
}

export function exportCommand(): Command {
  return new Command('export')
    .description('write the whole workspace (records and files) to a ZIP file, as POST /api/v1/exports does')
    .addOption(workspaceOption())
    .addOption(new Option('--out <file.zip>', 'where the ZIP goes').makeOptionMandatory())
    .addOption(jsonOption())
    .action(async (opts: { workspace: number; out: string; json?: boolean }) => {
      const config = loadConfig();
      const target = path.resolve(opts.out);
      const partial = `${target}.partial-${process.pid}`;
      const counts = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        const storage = storageFromConfig(config, new UrlSigner(db), () => config.publicUrl);
        const zip = workspaceZip(db, storage, opts.workspace);
        try {
          await pipeline(zip.stream, fs.createWriteStream(partial));
          const written = await zip.counts;
          fs.renameSync(partial, target); // never a half-written FILE
          return written;
        } catch (err) {
          fs.rmSync(partial, { force: true });
          throw new CliError(`export failed: ${messageOf(err)}`);
        }
      });
      const bytes = fs.statSync(target).size;
      print(opts, { json: { export: { path: target, bytes, counts } }, text: `Exported workspace ${opts.workspace} to ${target} (${bytes} bytes).` });
    });
}
