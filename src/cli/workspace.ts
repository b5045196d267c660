import { Command, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { mintSetupLink } from '../modules/accounts/accounts.service.ts';
import { createWorkspace, setWorkspace, workspaceFieldProblem, workspaceView } from '../modules/workspace/workspace.service.ts';
import { CliError, jsonOption, parsePair, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';
import { fields, section } from './format.ts';

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * The workspace fields the service stores as given: checked here so a typo'd
 * timezone or currency does not end up in the database. Empty clears (`set` only).
 */
export function checkWorkspaceField(key: string, value: string): void {
  const problem = workspaceFieldProblem(key, value);
  if (problem) throw new CliError(`${key} ${problem}`);
}

interface CreateOpts {
  name: string;
  ownerEmail: string;
  ownerFirstName?: string;
  ownerLastName?: string;
  slug?: string;
  country?: string;
  currency?: string;
  timezone?: string;
  industry?: string;
  json?: boolean;
}

export function workspaceCommand(): Command {
  const workspace = new Command('workspace').description('create and configure workspaces');

  workspace
    .command('create')
    .description('create a workspace and its owner')
    .addOption(new Option('--name <name>', 'workspace name').makeOptionMandatory())
    .addOption(new Option('--owner-email <email>', "owner's email").makeOptionMandatory())
    .option('--owner-first-name <first>', "owner's first name")
    .option('--owner-last-name <last>', "owner's last name")
    .option('--slug <slug>', 'URL slug (default: from the name)')
    .option('--country <cc>', 'ISO country code')
    .option('--currency <ccy>', "ISO currency code (default: the country's, else usd)")
    .option('--timezone <iana>', 'IANA time zone (default UTC)')
    .option('--industry <label>', 'industry label')
    .addOption(jsonOption())
    .action(async (opts: CreateOpts) => {
      if (!opts.name.trim()) throw new CliError('--name cannot be empty');
      if (!EMAIL.test(opts.ownerEmail)) throw new CliError(`--owner-email "${opts.ownerEmail}" is not an email address`);
      if (opts.slug !== undefined && !SLUG.test(opts.slug)) throw new CliError('--slug must be lowercase letters, digits and single dashes');
      for (const key of ['country', 'currency', 'timezone'] as const) {
        if (opts[key] !== undefined) checkWorkspaceField(key, opts[key] || ' ');
      }
      const { workspace: w, owner: o, setupUrl } = await withDatabase(async (db) => {
        const created = await createWorkspace(db, {
          name: opts.name.trim(),
          slug: opts.slug,
          country: opts.country,
          currency: opts.currency,
          timezone: opts.timezone,
          industry: opts.industry,
          owner: { email: opts.ownerEmail, first_name: opts.ownerFirstName, last_name: opts.ownerLastName },
        });
        // A1: the owner's way in: open it, set a password, sign in.
        const link = await mintSetupLink(db, created.workspace.id, created.owner.user_id, loadConfig().publicUrl);
        return { ...created, setupUrl: link.url };
      });
      // docs/operator.md lists the owner's fields exactly; the role is always "owner" here.
      const owner = { id: o.id, user_id: o.user_id, email: o.email, first_name: o.first_name, last_name: o.last_name, role: 'owner', setup_url: setupUrl };
      const view = workspaceView(w);
      print(opts, { json: { workspace: view, owner }, text: `${section('Workspace', view)}\n\n${section('Owner', owner)}` });
    });

  workspace
    .command('set')
    .description('change workspace fields and settings')
    .addOption(workspaceOption())
    .argument('<KEY=VALUE...>', 'fields (name, country, currency, timezone, industry, about) or settings (reply_to, plan, templates.*, ...)', parsePair)
    .addOption(jsonOption())
    .action(async (pairs: Record<string, string>, opts: { workspace: number; json?: boolean }) => {
      for (const [key, value] of Object.entries(pairs)) checkWorkspaceField(key, value);
      const result = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        return setWorkspace(db, opts.workspace, pairs);
      });
      const view = workspaceView(result.workspace);
      const settings = Object.fromEntries(Object.entries(result.settings).sort(([a], [b]) => a.localeCompare(b)));
      print(opts, { json: { workspace: view, settings: result.settings }, text: `${section('Workspace', view)}\n\nSettings\n${fields(settings, '  ')}` });
    });

  return workspace;
}
