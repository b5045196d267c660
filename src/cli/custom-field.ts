import { Command, Option } from 'commander';
import { FIELD_TYPES, type FieldType, MODULE_TYPES, type ModuleType } from '../modules/custom-fields/custom-fields.schemas.ts';
import { addCustomField } from '../modules/custom-fields/custom-fields.service.ts';
import { jsonOption, parseList, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';
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
      // The service checks key, label and options (the same rules as POST /custom-fields).
      const field = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        return addCustomField(db, opts.workspace, {
          module_type: opts.module,
          key: opts.key,
          label: opts.label,
          type: opts.type,
          options: opts.options ?? null,
          required: Boolean(opts.required),
        });
      });
      const { created_at: _, updated_at: __, ...view } = field;
      print(opts, { json: { custom_field: view }, text: section('Custom field', view) });
    });
  return cmd;
}
