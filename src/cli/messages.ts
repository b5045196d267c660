import { Command, Option } from 'commander';
import { CHANNELS, type Channel, listMessages, MESSAGE_VIEW_STATUSES, type MessageViewStatus } from '../outbox/messages.ts';
import { jsonOption, parseId, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';
import { table } from './format.ts';

interface MessagesOpts {
  workspace: number;
  channel?: Channel;
  status?: MessageViewStatus;
  limit: number;
  json?: boolean;
}

/** docs/operator.md `fieldwork messages`: the customer emails and SMS of a workspace, sent or not, with why not. */
export function messagesCommand(): Command {
  return new Command('messages')
    .description("a workspace's customer emails and SMS, newest first, with why any was not sent")
    .addOption(workspaceOption())
    .addOption(new Option('--channel <channel>', 'only this channel').choices(CHANNELS))
    .addOption(new Option('--status <status>', 'only messages in this status').choices(MESSAGE_VIEW_STATUSES))
    .addOption(new Option('--limit <n>', 'at most this many').argParser((v: string) => parseId(v, 'limit')).default(1000))
    .addOption(jsonOption())
    .action(async (opts: MessagesOpts) => {
      const messages = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        return listMessages(db, opts.workspace, { channel: opts.channel, status: opts.status, limit: opts.limit });
      });
      const text = messages.length
        ? table(
            ['ID', 'CHANNEL', 'TYPE', 'TO', 'SUBJECT', 'STATUS', 'ATTEMPTS', 'NEXT ATTEMPT', 'CREATED', 'SENT', 'WHY NOT'],
            messages.map((m) => [m.id, m.channel, m.type, m.to, m.subject, m.status, m.attempts, m.next_attempt_at, m.created_at, m.sent_at, m.error]),
          )
        : `No messages in workspace ${opts.workspace}.`;
      print(opts, { json: { messages }, text });
    });
}
