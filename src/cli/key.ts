import { Command, Option } from 'commander';
import { createKey, KEY_TYPES, type KeyType, listKeys, revokeKey } from '../modules/keys/keys.service.ts';
import { CliError, jsonOption, parseId, parseList, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';
import { fields, table } from './format.ts';

interface CreateOpts {
  workspace: number;
  type: KeyType;
  scopes?: string[];
  user?: string;
  name?: string;
  legacy?: boolean;
  unlinked?: boolean;
  json?: boolean;
}

export function keyCommand(): Command {
  const key = new Command('key').description('API keys');

  key
    .command('create')
    .description('create an API key; its token is printed once')
    .addOption(workspaceOption())
    .addOption(new Option('--type <type>', 'key type').choices(KEY_TYPES).makeOptionMandatory())
    .addOption(new Option('--scopes <list>', 'comma-separated scopes (replace the type defaults; required for rest)').argParser(parseList))
    .addOption(new Option('--user <uuid>', "the key's user (default: the workspace owner)"))
    .option('--name <name>', 'a label for the key')
    .option('--legacy', 'a deprecated key without the wk_ prefix')
    .addOption(new Option('--unlinked', 'a key with no user (the API answers it 403)').conflicts('user'))
    .addOption(jsonOption())
    .action(async (opts: CreateOpts) => {
      if (opts.type === 'rest' && !opts.scopes) throw new CliError('a rest key needs --scopes (comma-separated)');
      const created = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        return createKey(db, {
          workspaceId: opts.workspace,
          type: opts.type,
          scopes: opts.scopes,
          userId: opts.unlinked ? null : opts.user,
          name: opts.name,
          legacy: opts.legacy,
        });
      });
      const { token, ...rest } = created;
      const text = [
        `Created ${created.type} key ${created.id} in workspace ${created.workspace_id}`,
        fields(rest, '  '),
        '',
        'Token (shown once: only its hash is stored, so copy it now):',
        `  ${token}`,
      ].join('\n');
      print(opts, { json: { key: created }, text });
    });

  key
    .command('list')
    .description("a workspace's API keys (never their tokens)")
    .addOption(workspaceOption())
    .addOption(jsonOption())
    .action(async (opts: { workspace: number; json?: boolean }) => {
      const keys = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        return listKeys(db, opts.workspace);
      });
      const text = keys.length
        ? table(
            ['ID', 'TYPE', 'SCOPES', 'USER', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'],
            keys.map((k) => [k.id, k.type, k.scopes, k.user_id, k.name, k.created_at, k.last_used_at, k.revoked_at]),
          )
        : `No API keys in workspace ${opts.workspace}.`;
      print(opts, { json: { keys }, text });
    });

  key
    .command('revoke')
    .description('revoke an API key (D2: it then answers 401 Invalid API key)')
    .argument('<KEY_ID>', 'key id', (v: string) => parseId(v, 'key id'))
    .addOption(jsonOption())
    .action(async (id: number, opts: { json?: boolean }) => {
      const revoked = await withDatabase((db) => revokeKey(db, id));
      if (!revoked) throw new CliError(`key ${id} not found`);
      print(opts, { json: { key: { id: revoked.id, revoked_at: revoked.revoked_at } }, text: `Key ${revoked.id} revoked at ${revoked.revoked_at}.` });
    });

  return key;
}
