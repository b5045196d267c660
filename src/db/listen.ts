import { createRequire } from 'node:module';
import type { Client } from 'pg';

const require = createRequire(import.meta.url);

export interface Listener {
  /** True while the connection is up: until then a message may have been missed. */
  readonly live: boolean;
  /** Settles once the connection is first up (or the listener is closed). */
  readonly firstLive: Promise<void>;
  close(): Promise<void>;
}

/**
 * LISTEN on a PostgreSQL channel over one dedicated connection (a pooled one would
 * be handed back). `onReset` runs whenever the connection is lost, since anything
 * sent meanwhile is missed; the listener reconnects by itself.
 */
export function listen(url: string, channel: string, onMessage: (payload: string) => void, onReset: () => void): Listener {
  let client: Client | null = null;
  let closed = false;
  let live = false;
  let retry: NodeJS.Timeout | undefined;
  let markFirstLive = () => {};
  const firstLive = new Promise<void>((resolve) => {
    markFirstLive = resolve;
  });

  const lost = () => {
    if (!live && client === null) return;
    live = false;
    const old = client;
    client = null;
    old?.end().catch(() => {});
    onReset();
    if (!closed) retry = setTimeout(connect, 500);
  };

  async function connect() {
    if (closed) return;
    const pg: typeof import('pg') = require('pg');
    const c = new pg.Client({ connectionString: url });
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => onMessage(n.payload ?? ''));
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (client === c) {
        live = true;
        markFirstLive();
      }
    } catch {
      if (client === c) lost();
    }
  }
  void connect();

  return {
    get live() {
      return live;
    },
    firstLive,
    async close() {
      closed = true;
      markFirstLive();
      clearTimeout(retry);
      live = false;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
