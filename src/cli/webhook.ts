import { Command, Option } from 'commander';
import { type AttemptView, attemptsOf, DELIVERY_STATUSES, type DeliveryStatus, listDeliveries, redeliver } from '../outbox/deliveries.ts';
import { CliError, jsonOption, parseId, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';
import { fields, table } from './format.ts';

interface DeliveriesOpts {
  workspace: number;
  subscription?: number;
  status?: DeliveryStatus;
  limit: number;
  attempts?: boolean;
  json?: boolean;
}

/** docs/operator.md `fieldwork webhook deliveries|redeliver`: the delivery log, and one more attempt. */
export function webhookCommand(): Command {
  const webhook = new Command('webhook').description('webhook deliveries');

  webhook
    .command('deliveries')
    .description("a workspace's webhook deliveries, newest first")
    .addOption(workspaceOption())
    .addOption(new Option('--subscription <id>', 'only this subscription').argParser((v: string) => parseId(v, 'subscription id')))
    .addOption(new Option('--status <status>', 'only deliveries in this status').choices(DELIVERY_STATUSES))
    .addOption(new Option('--limit <n>', 'at most this many').argParser((v: string) => parseId(v, 'limit')).default(1000))
    .option('--attempts', "add each delivery's attempts (status code or error, duration)")
    .addOption(jsonOption())
    .action(async (opts: DeliveriesOpts) => {
      const { deliveries, attempts } = await withDatabase(async (db) => {
        await requireWorkspace(db, opts.workspace);
        const deliveries = await listDeliveries(db, opts.workspace, { subscriptionId: opts.subscription, status: opts.status, limit: opts.limit });
        const attempts = opts.attempts
          ? await attemptsOf(
              db,
              opts.workspace,
              deliveries.map((d) => d.id),
            )
          : null;
        return { deliveries, attempts };
      });
      const json = { deliveries: attempts ? deliveries.map((d) => ({ ...d, attempt_log: attempts.get(d.id) ?? [] })) : deliveries };
      const text = deliveries.length
        ? table(
            ['ID', 'SUBSCRIPTION', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST CODE', 'LAST ERROR', 'NEXT ATTEMPT', 'CREATED', 'DELIVERED'],
            deliveries.map((d) => [
              d.id,
              d.subscription_id,
              d.event,
              d.status,
              d.attempts,
              d.last_status_code,
              d.last_error,
              d.next_attempt_at,
              d.created_at,
              d.delivered_at,
            ]),
          ) + (attempts ? `\n\n${deliveries.map((d) => attemptLines(d.id, attempts.get(d.id) ?? [])).join('\n')}` : '')
        : `No webhook deliveries in workspace ${opts.workspace}.`;
      print(opts, { json, text });
    });

  webhook
    .command('redeliver')
    .description('queue one more attempt of a delivery, failed ones included (same webhook_id)')
    .argument('<DELIVERY_ID>', 'delivery id', (v: string) => parseId(v, 'delivery id'))
    .addOption(jsonOption())
    .action(async (id: number, opts: { json?: boolean }) => {
      const delivery = await withDatabase((db) => redeliver(db, id));
      if (!delivery) throw new CliError(`delivery ${id} not found`);
      print(opts, { json: { delivery }, text: `Delivery ${id} queued for another attempt.\n${fields({ ...delivery }, '  ')}` });
    });

  return webhook;
}

function attemptLines(id: number, attempts: AttemptView[]): string {
  const lines = attempts.map((a) => `  #${a.attempt} ${a.created_at} ${a.status_code ?? '-'} ${a.duration_ms}ms${a.error ? ` ${a.error}` : ''}`);
  return [`Delivery ${id}:`, ...(lines.length ? lines : ['  no attempts yet'])].join('\n');
}
