import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { queueStats } from '../outbox/stats.ts';
import type { AppContext } from './context.ts';

// METRICS_PORT (docs/operations.md "Metrics"): Prometheus text on a second
// listener, never on the API port. Request figures are this process's own;
// deliveries, messages and backlogs are read from the database at each scrape,
// so any process (an API with WORKER=off too) reports the whole deployment's queues.

export interface Metrics {
  registry: Registry;
  /** The text a scrape answers (the queue figures refreshed first). */
  scrape(): Promise<string>;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics?: Metrics;
  }
}

/** Counts and times every request by method, route pattern and status; decorates `app.metrics`. */
export function registerMetrics(app: FastifyInstance, ctx: Pick<AppContext, 'db'>): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'fieldwork_' });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'fieldwork_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const durations = new Histogram({
    name: 'fieldwork_http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const deliveries = new Gauge({ name: 'fieldwork_webhook_deliveries', help: 'Webhook deliveries held, by status', labelNames: ['status'], registers: [registry] });
  const messages = new Gauge({ name: 'fieldwork_messages', help: 'Customer messages held, by channel and status', labelNames: ['channel', 'status'], registers: [registry] });
  const due = new Gauge({ name: 'fieldwork_queue_due', help: 'Rows due now and not yet done, per queue', labelNames: ['queue'], registers: [registry] });
  const databaseUp = new Gauge({ name: 'fieldwork_database_up', help: '1 when the last scrape could read the database', registers: [registry] });

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL: ids would make one series per row.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    durations.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  const metrics: Metrics = {
    registry,
    async scrape() {
      try {
        const stats = await queueStats(ctx.db);
        // Reset first: a status whose rows were all pruned disappears rather than keeping its last value.
        deliveries.reset();
        messages.reset();
        for (const r of stats.deliveries) deliveries.set({ status: r.status }, r.n);
        for (const r of stats.messages) messages.set({ channel: r.channel, status: r.status }, r.n);
        for (const r of stats.due) due.set({ queue: r.queue }, r.n);
        databaseUp.set(1);
      } catch {
        databaseUp.set(0);
      }
      return registry.metrics();
    },
  };
  app.decorate('metrics', metrics);
  return metrics;
}

/** The metrics listener: GET /metrics and nothing else. Resolves once listening, with the server. */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    metrics.scrape().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
