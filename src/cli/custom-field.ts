import { Command, Option } from 'commander';
import { isUniqueViolation } from '../db/database.ts';
import { FIELD_TYPES, type FieldType, MODULE_TYPES, type ModuleType } from '../modules/custom-fields/custom-fields.schemas.ts';
import { addCustomField } from '../modules/custom-fields/custom-fields.service.ts';
import { CliError, jsonOption, parseList, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';
import { section } from './format.ts';

interface AddOpts {
  workspace: number;
  module: ModuleType;
  key: string;
  label: string;
  type: FieldType;
  options?: string[];
  required?: boolean;
  json?: boolean;
}

// Keys travel as JSON object keys and form field names: kept to a plain identifier.
const KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** D23: `fieldwork custom-field add` defines one custom field of a module. */
export function customFieldCommand(): Command {
  const cmd = new Command('custom-field').description("define a workspace's custom fields (D23)");
  cmd
    .command('add')
    .description('add a custom field definition')
    .addOption(workspaceOption())
    .addOption(new Option('--module <module>', 'module').choices([...MODULE_TYPES]).makeOptionMandatory())
    .addOption(new Option('--key <key>', 'key in custom_fields').makeOptionMandatory())
    .addOption(new Option('--label <label>', 'label shown to people').makeOptionMandatory())
    .addOption(new Option('--type <type>', 'value type').choices([...FIELD_TYPES]).makeOptionMandatory())
    .addOption(new Option('--options <a,b,c>', 'allowed values of a select').argParser(parseList))
    .option('--required', 'required when a record is created')
    .addOption(jsonOption())
    .action(async (opts: AddOpts) => {
      if (!KEY.test(opts.key)) throw new CliError('--key must start with a letter and hold only letters, digits and _ (max 64)');
      if (!opts.label.trim()) throw new CliError('--label cannot be empty');
      if (opts.type === 'select' && !opts.options) throw new CliError('--options is required for a select field');
      if (opts.type !== 'select' && opts.options) throw new CliError('--options applies to select fields only');
      const field = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        try {
          return await addCustomField(db, opts.workspace, {
            module_type: opts.module,
            key: opts.key,
            label: opts.label.trim(),
            type: opts.type,
            options: opts.options ?? null,
            required: Boolean(opts.required),
          });
        } catch (err) {
          if (isUniqueViolation(err)) throw new CliError(`custom field "${opts.key}" already exists on ${opts.module}`);
          throw err;
        }
      });
      const { created_at: _, ...view } = field;
      print(opts, { json: { custom_field: view }, text: section('Custom field', view) });
    });
  return cmd;
}
