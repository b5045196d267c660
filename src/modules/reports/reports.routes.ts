import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TObject, TProperties } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { type CellWriter, jsonOrCsv, plainCell, sendCsv, wantsCsv } from '../../http/csv.ts';
import {
  JobCostingRow,
  QuotesRow,
  RangeQuery,
  ReceivablesQuery,
  ReceivablesRow,
  ReportPage,
  RevenueQuery,
  RevenueRow,
  TimeRow,
} from './reports.schemas.ts';
import { jobCostingReport, quotesReport, receivablesReport, revenueReport, timeReport } from './reports.service.ts';

// E27: GET /reports/<name>: the rows in the list envelope (every row on one page), or,
// asked for with `Accept: text/csv` or `?format=csv`, the same rows as CSV (RFC 4180,
// a header row of the field names, UTF-8), streamed by the API's one CSV writer (src/http/csv.ts).

type Kind = 'money' | 'hours' | 'percent';
/** The kind of each numeric report field. */
const KINDS: Record<string, Kind> = {
  invoiced: 'money',
  collected: 'money',
  current: 'money',
  days_1_30: 'money',
  days_31_60: 'money',
  days_61_90: 'money',
  days_over_90: 'money',
  revenue: 'money',
  labour_cost: 'money',
  line_costs: 'money',
  expenses: 'money',
  profit: 'money',
  sent_amount: 'money',
  accepted_amount: 'money',
  labour_hours: 'hours',
  draft: 'hours',
  pending: 'hours',
  approved: 'hours',
  rejected: 'hours',
  margin: 'percent',
  conversion: 'percent',
};

/** How a CSV cell writes a report's number (F269): money and hours with 2 decimals, percentages with 1, nulls empty. */
const reportCell: CellWriter = (field, v) => (typeof v === 'number' && KINDS[field] ? v.toFixed(KINDS[field] === 'percent' ? 1 : 2) : plainCell(field, v));

const responses = <T extends TObject<TProperties>>(row: T) => ({ 200: jsonOrCsv(ReportPage(row), 'The rows (every one on one page), or the same rows as CSV') });

const list = <T>(rows: T[]) => ({ success: true as const, data: rows, pagination: { page: 1, per_page: rows.length, total_pages: 1 } });

export async function reportsRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const config = { scope: 'reports:read' };
  const tags = ['Report'];
  const answer = (req: { query: { format?: string }; headers: { accept?: string } }, reply: FastifyReply, name: string, row: TObject<TProperties>, rows: object[]) =>
    wantsCsv(req) ? sendCsv(reply, name, Object.keys(row.properties), rows, reportCell) : reply.send(list(rows));

  app.get(
    '/reports/revenue',
    {
      config,
      schema: {
        tags,
        operationId: 'getRevenueReport',
        summary: 'Invoiced and collected per month, client or service',
        description:
          '`invoiced`: totals of invoices neither draft nor cancelled, by their `date`; `collected`: payments by `paid_on`. `group=service`: line totals (before discount and tax) by line item name, `collected` 0. `from`/`to` default to the current month in the workspace timezone.',
        querystring: RevenueQuery,
        response: responses(RevenueRow),
      },
    },
    async (req, reply) => answer(req, reply, `revenue-${req.query.group ?? 'month'}`, RevenueRow, await revenueReport(db, req.auth.workspaceId, req.query)),
  );
  app.get(
    '/reports/receivables',
    {
      config,
      schema: {
        tags,
        operationId: 'getReceivablesReport',
        summary: 'Open balances per client by age',
        description:
          'Balances of sent, partially paid and overdue invoices by days past `due_date` at `as_of` (default today); largest total first, then a last row `Total` with `contact_id` null.',
        querystring: ReceivablesQuery,
        response: responses(ReceivablesRow),
      },
    },
    async (req, reply) => answer(req, reply, 'receivables', ReceivablesRow, await receivablesReport(db, req.auth.workspaceId, req.query)),
  );
  app.get(
    '/reports/job-costing',
    {
      config,
      schema: {
        tags,
        operationId: 'getJobCostingReport',
        summary: 'Revenue, costs and profit per job',
        description:
          "One row per job with a time entry, a counted invoice or an expense dated in the range; the figures are the job's: revenue (invoice totals less tax), labour (hours x cost per hour), line item costs, expenses, profit and margin.",
        querystring: RangeQuery,
        response: responses(JobCostingRow),
      },
    },
    async (req, reply) => answer(req, reply, 'job-costing', JobCostingRow, await jobCostingReport(db, req.auth.workspaceId, req.query)),
  );
  app.get(
    '/reports/time',
    {
      config,
      schema: {
        tags,
        operationId: 'getTimeReport',
        summary: 'Hours per member and week by timesheet status',
        querystring: RangeQuery,
        response: responses(TimeRow),
      },
    },
    async (req, reply) => answer(req, reply, 'time', TimeRow, await timeReport(db, req.auth.workspaceId, req.query)),
  );
  app.get(
    '/reports/quotes',
    {
      config,
      schema: {
        tags,
        operationId: 'getQuotesReport',
        summary: 'Quotes sent per month, how many were accepted or declined, and the conversion',
        querystring: RangeQuery,
        response: responses(QuotesRow),
      },
    },
    async (req, reply) => answer(req, reply, 'quotes', QuotesRow, await quotesReport(db, req.auth.workspaceId, req.query)),
  );
}
