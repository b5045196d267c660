import { Command, Option } from 'commander';
import { listInbox, markRead } from '../modules/notifications-internal/internal-notifications.ts';
import { CliError, jsonOption, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';
import { table } from './format.ts';

interface InboxOpts {
  workspace: number;
  user: string;
  unread?: boolean;
  markRead?: boolean;
  json?: boolean;
}

/** docs/operator.md `fieldwork inbox`: a user's internal notifications (SPEC, D22), newest first. */
export function inboxCommand(): Command {
  return new Command('inbox')
    .description("a user's internal notifications, newest first")
    .addOption(workspaceOption())
    .addOption(new Option('--user <uuid>', "the user's UUID").makeOptionMandatory())
    .option('--unread', 'only notifications not yet read')
    .option('--mark-read', 'mark the notifications shown as read (after printing them)')
    .addOption(jsonOption())
    .action(async (opts: InboxOpts) => {
      const notifications = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        const member = await db.selectFrom('users').select('id').where('workspace_id', '=', opts.workspace).where('user_id', '=', opts.user).executeTakeFirst();
        if (!member) throw new CliError(`user ${opts.user} is not a member of workspace ${opts.workspace}`);
        const items = await listInbox(db, opts.workspace, opts.user, { unread: opts.unread });
        if (opts.markRead) {
          const ids = items.map((n) => n.id);
          await markRead(db, opts.workspace, opts.user, ids);
        }
        return items;
      });
      const about = (n: (typeof notifications)[number]) => n.module_type && `${n.module_type} ${n.module_id}`;
      const rows = notifications.map((n) => [n.id, n.created_at, n.name, about(n), n.read_at ? 'read' : 'unread', n.data]);
      print(opts, {
        json: { notifications },
        text: notifications.length ? table(['id', 'created_at', 'name', 'about', 'status', 'data'], rows) : 'No notifications.',
      });
    });
}
