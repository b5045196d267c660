import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

// The one CSV mechanism of the API (E27 reports, E29 lists): RFC 4180 with CRLF line
// ends, a header row of the field names, UTF-8, streamed through csv-stringify so no
// answer is ever held whole in memory.

/** `?format=csv`, or (without `format`) an Accept header that names text/csv. */
export const wantsCsv = (req: { query: unknown; headers: { accept?: string } }): boolean => {
  const format = (req.query as { format?: string } | undefined)?.format;
  return format === 'csv' || (format === undefined && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(req.headers.accept ?? ''));
};

/** A cell: empty for null, JSON for objects and arrays (custom fields, addresses, line items), else the value's text. */
export type CellWriter = (field: string, value: unknown) => string;
export const plainCell: CellWriter = (_field, v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Streams `rows` (sync or async) as a CSV attachment named `<name>.csv`. */
export function sendCsv(reply: FastifyReply, name: string, fields: string[], rows: Iterable<object> | AsyncIterable<object>, cell: CellWriter = plainCell) {
  const line = (row: object) => fields.map((f) => cell(f, (row as Record<string, unknown>)[f]));
  async function* lines() {
    for await (const row of rows) yield line(row);
  }
  const csv = Readable.from(lines()).pipe(stringify({ header: true, columns: fields, record_delimiter: 'windows' }));
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .header('cache-control', 'private, no-store')
    .send(csv);
}

/** The OpenAPI answer of a route that speaks JSON or, asked to, CSV. */
export const jsonOrCsv = (json: unknown, description: string) => ({
  description,
  content: {
    'application/json': { schema: json },
    'text/csv': { schema: { type: 'string', description: 'RFC 4180, a header row of the field names, UTF-8' } },
  },
});

/** Rows per internal page of a list's CSV: the list is read a page at a time, never whole. */
export const CSV_PAGE_SIZE = 500;

type Schema = { properties?: Record<string, Schema>; items?: Schema; type?: unknown };
type ListAnswer = { data: object[] };

/** The item schema of a paginated list answer (`{success, data: [item], pagination}`), or undefined. */
function listItem(route: RouteOptions): Schema | undefined {
  const query = route.schema?.querystring as Schema | undefined;
  const ok = (route.schema?.response as Record<string, Schema> | undefined)?.[200];
  if (!query?.properties?.page || !query.properties.per_page || !ok?.properties?.pagination) return undefined;
  return ok.properties.data?.items;
}

/**
 * E29: every paginated list answers CSV too (`?format=csv` or `Accept: text/csv`), with
 * the same filters and every page: the route's own handler is run page after page (its
 * validation, scopes and tenancy unchanged) and each page is written as it arrives. The
 * first page is read before answering, so a refused list (404, 400) answers its error.
 */
export function registerListCsv(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.method !== 'GET' || !route.schema) return;
    const item = listItem(route);
    if (!item?.properties) return;
    const fields = Object.keys(item.properties);
    const query = route.schema.querystring as Schema & { properties: Record<string, Schema> };
    route.schema.querystring = {
      ...query,
      properties: {
        ...query.properties,
        format: { type: 'string', enum: ['json', 'csv'], description: '`csv`: every row (all pages, the same filters) as CSV' },
      },
    };
    // F307: the OpenAPI answer stays the JSON page, so generated clients keep their typed lists;
    // the CSV is told by the `format` parameter and the description.
    const note = 'With `format=csv` (or `Accept: text/csv`): every row matching the filters, all pages, as CSV.';
    route.schema.description = route.schema.description ? `${route.schema.description} ${note}` : note;
    const name =
      route.url
        .split('/')
        .filter((s) => s && !s.startsWith(':'))
        .pop() ?? 'export';
    const handler = route.handler;
    route.handler = async function (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      const csv = wantsCsv(req);
      const { format: _format, ...filters } = req.query as Record<string, unknown>;
      req.query = filters;
      if (!csv) return handler.call(this, req, reply);
      const pageOf = async (page: number) => {
        req.query = { ...filters, page, per_page: CSV_PAGE_SIZE };
        return (await handler.call(this, req, reply)) as ListAnswer;
      };
      const first = await pageOf(1);
      async function* rows() {
        let answer = first;
        for (let page = 1; ; page++) {
          if (page > 1) answer = await pageOf(page);
          yield* answer.data;
          if (answer.data.length < CSV_PAGE_SIZE) return;
        }
      }
      return sendCsv(reply, name, fields, rows());
    };
  });
}
