// The OpenAPI document of a built app, without a server or a database file:
// what `npm run client:generate` and the document's tests read (E16, E17).
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';

/** The document as GET /api/v1/openapi.json serves it, with a fixed server URL (not localhost: lint's no-server-example.com) so it is reproducible. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const database = createDb('sqlite::memory:');
  const app = await buildApp({ config: loadConfig({ PUBLIC_URL: 'https://fieldwork.test' }), database, logger: false });
  try {
    await app.ready();
    return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
  } finally {
    await app.close();
    await database.close();
  }
}
