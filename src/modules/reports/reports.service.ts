import type { Kysely } from 'kysely';
import { fromJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { addDays, isCalendarDate } from '../../domain/weeks.ts';
import { computeTotals, type LineItem, lineTotalCents, type Unit } from '../../domain/line-items.ts';
import { totalCents } from '../../domain/money.ts';
import { zonedDate, zonedInstant } from '../../domain/zoned-time.ts';
import { invalidField } from '../../kernel/errors.ts';
import { workspaceTimezone } from '../workspace/workspace.repo.ts';
import {
  activeJobIds,
  collectedByClient,
  collectedByMonth,
  contactNames,
  countedInvoiceLines,
  hoursByMemberWeek,
  invoicedByClient,
  invoicedByMonth,
  jobHoursByMember,
  jobInvoices,
  jobsForCosting,
  quotesFirstSent,
  type Range,
  receivablesByClient,
} from './reports.repo.ts';
import type { JobCostingRow, QuotesRow, RangeQuery, ReceivablesQuery, ReceivablesRow, RevenueQuery, RevenueRow, TimeRow } from './reports.schemas.ts';

// E27: the reports, each a list of rows computed in integer cents (and hundredths of an
// hour) and written as numbers with 2 decimals at the end, so every cell equals the sum
// of the documents it covers to the cent.

const money = (cents: number): number => cents / 100;
const hours = (hundredths: number): number => hundredths / 100;
/** A sum of `total_time` values (2 decimals each) as exact hundredths of an hour. */
const hundredths = (h: number): number => Math.round(h * 100);
/** n / d as a percentage with one decimal, half away from zero; null when d is 0. */
const percent = (n: number, d: number): number | null => (d === 0 ? null : (Math.sign(n) * Math.round((Math.abs(n) * 1000) / d)) / 10);
/** n / d rounded half away from zero (d > 0). */
const roundDiv = (n: number, d: number): number => Math.sign(n) * Math.round(Math.abs(n) / d);

const monthEnd = (month: string): string => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
  return addDays(next, -1);
};

/** `from`..`to` checked (E27: a bad date or `from` after `to` is 400 naming it); default the current month where the workspace is (F261). */
export async function resolveRange(db: Kysely<DB>, workspaceId: number, q: { from?: string; to?: string }): Promise<Range & { timeZone: string | null }> {
  const timeZone = await workspaceTimezone(db, workspaceId);
  for (const field of ['from', 'to'] as const) {
    const v = q[field];
    if (v !== undefined && !isCalendarDate(v)) throw invalidField([field], 'must be a date (YYYY-MM-DD) that exists');
  }
  const month = zonedDate(Date.now(), timeZone).slice(0, 7);
  const from = q.from ?? (q.to !== undefined && q.to < `${month}-01` ? `${q.to.slice(0, 7)}-01` : `${month}-01`);
  const to = q.to ?? (q.from !== undefined && q.from > monthEnd(month) ? monthEnd(q.from.slice(0, 7)) : monthEnd(month));
  if (from > to) throw invalidField(['from'], 'must be on or before to');
  return { from, to, timeZone };
}

/** Every `YYYY-MM` from `from`'s month to `to`'s, in order. */
function monthsOf(r: Range): string[] {
  const out: string[] = [];
  let [y, m] = r.from.split('-').map(Number) as [number, number];
  const last = r.to.slice(0, 7);
  for (;;) {
    const key = `${y}-${String(m).padStart(2, '0')}`;
    out.push(key);
    if (key >= last) return out;
    m += 1;
    if (m === 13) [y, m] = [y + 1, 1];
  }
}

/** A client's label in the reports; invoices without a client are grouped under this one (F265). */
const NO_CLIENT = 'No client';

export async function revenueReport(db: Kysely<DB>, workspaceId: number, q: RevenueQuery): Promise<RevenueRow[]> {
  const r = await resolveRange(db, workspaceId, q);
  const group = q.group ?? 'month';
  if (group === 'month') {
    const [invoiced, collected] = await Promise.all([invoicedByMonth(db, workspaceId, r), collectedByMonth(db, workspaceId, r)]);
    const inv = new Map(invoiced.map((x) => [x.month, x.cents]));
    const col = new Map(collected.map((x) => [x.month, x.cents]));
    return monthsOf(r).map((key) => ({ key, label: key, invoiced: money(inv.get(key) ?? 0), collected: money(col.get(key) ?? 0) }));
  }
  if (group === 'client') {
    const [invoiced, collected] = await Promise.all([invoicedByClient(db, workspaceId, r), collectedByClient(db, workspaceId, r)]);
    const rows = new Map<number | null, { invoiced: number; collected: number }>();
    for (const x of invoiced) rows.set(x.contact_id, { invoiced: x.cents, collected: 0 });
    for (const x of collected) rows.set(x.contact_id, { invoiced: rows.get(x.contact_id)?.invoiced ?? 0, collected: x.cents });
    const names = await contactNames(db, workspaceId, [...rows.keys()].filter((k): k is number => k !== null));
    // F265: largest invoiced first, then collected, then by client id.
    return [...rows.entries()]
      .sort(([a, x], [b, y]) => y.invoiced - x.invoiced || y.collected - x.collected || (a ?? 0) - (b ?? 0))
      .map(([id, v]) => ({ key: id === null ? null : String(id), label: id === null ? NO_CLIENT : (names.get(id) ?? ''), invoiced: money(v.invoiced), collected: money(v.collected) }));
  }
  // `service`: line totals (before discount and tax) by line item name; optional items count for nothing, as in D7 (F266).
  const byName = new Map<string, number>();
  for (const inv of await countedInvoiceLines(db, workspaceId, r)) {
    for (const item of fromJson<LineItem[]>(inv.line_items) ?? []) {
      if (item.optional) continue;
      byName.set(item.name, (byName.get(item.name) ?? 0) + lineTotalCents(item));
    }
  }
  return [...byName.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, c]) => ({ key: name, label: name, invoiced: money(c), collected: 0 }));
}

export async function receivablesReport(db: Kysely<DB>, workspaceId: number, q: ReceivablesQuery): Promise<ReceivablesRow[]> {
  if (q.as_of !== undefined && !isCalendarDate(q.as_of)) throw invalidField(['as_of'], 'must be a date (YYYY-MM-DD) that exists');
  // F261: today's open balances, aged at as_of.
  const asOf = q.as_of ?? zonedDate(Date.now(), await workspaceTimezone(db, workspaceId));
  const rows = (
    await receivablesByClient(db, workspaceId, { asOf, d1: addDays(asOf, -1), d30: addDays(asOf, -30), d60: addDays(asOf, -60), d90: addDays(asOf, -90) })
  )
    .map((x) => ({ ...x, total: x.current + x.days_1_30 + x.days_31_60 + x.days_61_90 + x.days_over_90 }))
    .filter((x) => x.total !== 0);
  rows.sort((a, b) => b.total - a.total || (a.contact_id ?? 0) - (b.contact_id ?? 0));
  const names = await contactNames(db, workspaceId, rows.map((x) => x.contact_id).filter((k): k is number => k !== null));
  const sum = (k: 'current' | 'days_1_30' | 'days_31_60' | 'days_61_90' | 'days_over_90' | 'total') => rows.reduce((s, x) => s + x[k], 0);
  const view = (contact_id: number | null, name: string, x: Record<'current' | 'days_1_30' | 'days_31_60' | 'days_61_90' | 'days_over_90' | 'total', number>) => ({
    contact_id,
    name,
    current: money(x.current),
    days_1_30: money(x.days_1_30),
    days_31_60: money(x.days_31_60),
    days_61_90: money(x.days_61_90),
    days_over_90: money(x.days_over_90),
    total: money(x.total),
  });
  return [
    ...rows.map((x) => view(x.contact_id, x.contact_id === null ? NO_CLIENT : (names.get(x.contact_id) ?? ''), x)),
    view(null, 'Total', { current: sum('current'), days_1_30: sum('days_1_30'), days_31_60: sum('days_31_60'), days_61_90: sum('days_61_90'), days_over_90: sum('days_over_90'), total: sum('total') }),
  ];
}

interface Expense {
  amount: number;
}

export async function jobCostingReport(db: Kysely<DB>, workspaceId: number, q: RangeQuery): Promise<JobCostingRow[]> {
  const r = await resolveRange(db, workspaceId, q);
  // F261: the period picks the jobs; each job's figures are the whole job's.
  const ids = await activeJobIds(db, workspaceId, r);
  if (!ids.length) return [];
  const [jobs, invoices, labour] = await Promise.all([jobsForCosting(db, workspaceId, ids), jobInvoices(db, workspaceId, ids), jobHoursByMember(db, workspaceId, ids)]);
  const revenue = new Map<number, number>();
  for (const inv of invoices) {
    // E27: the invoice's total less its tax (D7's tax of its lines and terms).
    const items = fromJson<LineItem[]>(inv.line_items) ?? [];
    const tax = computeTotals(items, { discount: inv.discount, discount_unit: inv.discount_unit as Unit, tax_rate: inv.tax_rate }).tax;
    const job = Number(inv.job_id);
    revenue.set(job, (revenue.get(job) ?? 0) + totalCents(inv.total) - tax);
  }
  // F263: hours x cost per hour exactly (hundredths of an hour x cents), rounded to the cent once per job.
  const hoursOf = new Map<number, number>();
  const labourOf = new Map<number, number>();
  for (const x of labour) {
    const h = hundredths(x.hours);
    hoursOf.set(x.job_id, (hoursOf.get(x.job_id) ?? 0) + h);
    labourOf.set(x.job_id, (labourOf.get(x.job_id) ?? 0) + h * (x.cost_rate_cents ?? 0));
  }
  return jobs
    .sort((a, b) => a.number - b.number || a.id - b.id)
    .map((job) => {
      const rev = revenue.get(job.id) ?? 0;
      const labourCost = roundDiv(labourOf.get(job.id) ?? 0, 100);
      // F266: optional items count for nothing, as in D7's totals.
      const lineCosts = (fromJson<LineItem[]>(job.line_items) ?? []).reduce(
        (s, item) => s + (item.optional || item.unit_cost === undefined ? 0 : lineTotalCents({ quantity: item.quantity, unitPrice: item.unit_cost })),
        0,
      );
      const expenses = (fromJson<Expense[]>(job.expenses) ?? []).reduce((s, e) => s + totalCents(e.amount), 0);
      const profit = rev - labourCost - lineCosts - expenses;
      return {
        job_id: job.id,
        number: job.number,
        name: job.name,
        contact_id: job.contact_id,
        revenue: money(rev),
        labour_hours: hours(hoursOf.get(job.id) ?? 0),
        labour_cost: money(labourCost),
        line_costs: money(lineCosts),
        expenses: money(expenses),
        profit: money(profit),
        margin: percent(profit, rev),
      };
    });
}

const TIMESHEET_COLUMNS = ['draft', 'pending', 'approved', 'rejected'] as const;

export async function timeReport(db: Kysely<DB>, workspaceId: number, q: RangeQuery): Promise<TimeRow[]> {
  const r = await resolveRange(db, workspaceId, q);
  const rows = new Map<string, TimeRow & { cells: Record<string, number> }>();
  for (const x of await hoursByMemberWeek(db, workspaceId, r)) {
    const key = `${x.user_id}|${x.start_date}`;
    const name = [x.first_name, x.last_name].filter(Boolean).join(' ') || x.email || '';
    const row = rows.get(key) ?? { user_id: x.user_id, name, week_start: x.start_date, draft: 0, pending: 0, approved: 0, rejected: 0, total: 0, cells: {} };
    row.cells[x.status] = (row.cells[x.status] ?? 0) + hundredths(x.hours);
    rows.set(key, row);
  }
  // F267: by week, then by name.
  return [...rows.values()]
    .sort((a, b) => (a.week_start < b.week_start ? -1 : a.week_start > b.week_start ? 1 : a.name.localeCompare(b.name) || (a.user_id < b.user_id ? -1 : 1)))
    .map(({ cells, ...row }) => {
      const c = (s: string) => cells[s] ?? 0;
      return { ...row, draft: hours(c('draft')), pending: hours(c('pending')), approved: hours(c('approved')), rejected: hours(c('rejected')), total: hours(TIMESHEET_COLUMNS.reduce((s, k) => s + c(k), 0)) };
    });
}

export async function quotesReport(db: Kysely<DB>, workspaceId: number, q: RangeQuery): Promise<QuotesRow[]> {
  const r = await resolveRange(db, workspaceId, q);
  // The range's days in the workspace's timezone, as instants (status changes are stamped in UTC).
  const fromAt = new Date(zonedInstant(r.from, '00:00', r.timeZone)).toISOString();
  const toAt = new Date(zonedInstant(addDays(r.to, 1), '00:00', r.timeZone)).toISOString();
  const months = new Map(monthsOf(r).map((key) => [key, { sent: 0, accepted: 0, declined: 0, sentCents: 0, acceptedCents: 0 }]));
  for (const x of await quotesFirstSent(db, workspaceId, fromAt, toAt)) {
    const m = months.get(zonedDate(Date.parse(x.sent_at), r.timeZone).slice(0, 7));
    if (!m) continue;
    m.sent += 1;
    m.sentCents += totalCents(x.total);
    // F268: accepted once is accepted; declined counts those never accepted.
    if (x.accepted) {
      m.accepted += 1;
      m.acceptedCents += totalCents(x.total);
    } else if (x.declined) m.declined += 1;
  }
  return [...months.entries()].map(([key, m]) => ({
    key,
    sent: m.sent,
    accepted: m.accepted,
    declined: m.declined,
    sent_amount: money(m.sentCents),
    accepted_amount: money(m.acceptedCents),
    conversion: percent(m.accepted, m.sent),
  }));
}
