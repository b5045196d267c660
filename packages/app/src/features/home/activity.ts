import type { components } from '@fieldwork/client';

export type Activity = components['schemas']['Home']['activity'][number];

const KIND: Record<string, string> = { contacts: 'Client', requests: 'Request', quotes: 'Quote', jobs: 'Job', invoices: 'Invoice', events: 'Visit' };

/** What happened, in words: "Quote #12 Deck repair accepted". */
export function activityText(a: Activity): string {
  const kind = KIND[a.resource] ?? a.resource;
  const what = a.resource === 'contacts' ? (a.name ?? 'Client') : [`${kind}${a.number ? ` #${a.number}` : ''}`, a.name].filter(Boolean).join(' ');
  const verb: Record<string, string> = {
    payment_received: 'payment received',
    quote_accepted: 'accepted',
    invoice_sent: 'sent',
    invoice_paid: 'paid',
  };
  if (a.event === 'payment_received') return `Payment received on invoice`;
  if (verb[a.event]) return `${what} ${verb[a.event]}`;
  if (a.event.startsWith('new_')) return `${what} created`;
  if (a.event.endsWith('_deleted')) return `${kind} deleted`;
  return `${what} updated${a.status ? ` (${a.status.replaceAll('_', ' ')})` : ''}`;
}

/** The record's page in the app. */
export const recordPath = (a: Activity): string =>
  a.resource === 'contacts' ? `/clients/${a.id}` : a.resource === 'events' ? '/schedule' : `/${a.resource}/${a.id}`;

const MONTH = new Intl.DateTimeFormat('en', { month: 'short', year: '2-digit', timeZone: 'UTC' });
/** "2026-03" -> "Mar 26". */
export const monthLabel = (month: string) => MONTH.format(new Date(`${month}-01T00:00:00Z`));
