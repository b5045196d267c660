import { Command, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { mintSetupLink } from '../modules/accounts/accounts.service.ts';
import { findUser } from '../modules/users/users.repo.ts';
import { addUser, ROLES, type Role, setUser, userView } from '../modules/users/users.service.ts';
import { CliError, jsonOption, parsePair, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';
import { fields, section } from './format.ts';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

interface AddOpts {
  workspace: number;
  email: string;
  firstName?: string;
  lastName?: string;
  role?: Role;
  jobTitle?: string;
  json?: boolean;
}

/** docs/operator.md's field order for a user. */
const userJson = (u: Parameters<typeof userView>[0]) => {
  const v = userView(u);
  return { id: v.id, user_id: v.user_id, email: v.email, first_name: v.first_name, last_name: v.last_name, role: v.role, job_title: v.job_title };
};

export function userCommand(): Command {
  const user = new Command('user').description('workspace members');

  user
    .command('add')
    .description('add a user to a workspace')
    .addOption(workspaceOption())
    .addOption(new Option('--email <email>', 'email address').makeOptionMandatory())
    .option('--first-name <first>', 'first name')
    .option('--last-name <last>', 'last name')
    .addOption(new Option('--role <role>', 'role').choices(ROLES).default('member'))
    .option('--job-title <title>', 'job title')
    .addOption(jsonOption())
    .action(async (opts: AddOpts) => {
      if (!EMAIL.test(opts.email)) throw new CliError(`--email "${opts.email}" is not an email address`);
      const { row, setupUrl } = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        const added = await addUser(db, opts.workspace, {
          email: opts.email,
          first_name: opts.firstName,
          last_name: opts.lastName,
          role: opts.role,
          job_title: opts.jobTitle,
        });
        const link = await mintSetupLink(db, opts.workspace, added.user_id, loadConfig().publicUrl); // A1
        return { row: added, setupUrl: link.url };
      });
      const view = { ...userJson(row), setup_url: setupUrl };
      print(opts, { json: { user: view }, text: section('User', view) });
    });

  user
    .command('link')
    .description('a fresh setup link for a user (APP.md A1): single use, valid 7 days')
    .addOption(workspaceOption())
    .addOption(new Option('--user <uuid>', "the user's UUID").makeOptionMandatory())
    .addOption(jsonOption())
    .action(async (opts: { workspace: number; user: string; json?: boolean }) => {
      const link = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        if (!(await findUser(db, opts.workspace, opts.user))) throw new CliError(`user ${opts.user} is not a member of workspace ${opts.workspace}`);
        return mintSetupLink(db, opts.workspace, opts.user, loadConfig().publicUrl);
      });
      print(opts, { json: { setup_url: link.url }, text: section('Setup link', { setup_url: link.url, expires_at: link.expires_at }) });
    });

  user
    .command('set')
    .description("change a user's fields and notification preferences")
    .addOption(workspaceOption())
    .addOption(new Option('--user <uuid>', "the user's UUID").makeOptionMandatory())
    .argument('<KEY=VALUE...>', 'fields (first_name, last_name, role, job_title) or notify.<name>=true|false', parsePair)
    .addOption(jsonOption())
    .action(async (pairs: Record<string, string>, opts: { workspace: number; user: string; json?: boolean }) => {
      const result = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        return setUser(db, opts.workspace, opts.user, pairs);
      });
      const view = userJson(result.user);
      const prefs = Object.keys(result.preferences).length ? fields(result.preferences, '  ') : '  (none set)';
      print(opts, { json: { user: view, preferences: result.preferences }, text: `${section('User', view)}\n\nPreferences\n${prefs}` });
    });

  return user;
}
