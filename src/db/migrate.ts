import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Database } from './database.ts';
import * as m0001 from './migrations/0001-foundation.ts';
import * as m0002 from './migrations/0002-sales.ts';
import * as m0003 from './migrations/0003-scheduling.ts';
import * as m0004 from './migrations/0004-webhooks.ts';
import * as m0005 from './migrations/0005-files-comments.ts';
import * as m0006 from './migrations/0006-custom-fields.ts';
import * as m0007 from './migrations/0007-notifications.ts';
import * as m0008 from './migrations/0008-key-changes.ts';
import * as m0009 from './migrations/0009-search.ts';
import * as m0010 from './migrations/0010-retention.ts';
import * as m0012 from './migrations/0012-idempotency.ts';
import * as m0013 from './migrations/0013-invoice-money.ts';
import * as m0014 from './migrations/0014-sync.ts';
import * as m0015 from './migrations/0015-hub.ts';
import * as m0016 from './migrations/0016-accounts.ts';
import * as m0017 from './migrations/0017-settings.ts';
import * as m0018 from './migrations/0018-logo.ts';
import * as m0019 from './migrations/0019-home-indexes.ts';
import * as m0020 from './migrations/0020-status-order-indexes.ts';
import * as m0021 from './migrations/0021-queue-claim-indexes.ts';
import * as m0022 from './migrations/0022-payment-days.ts';
import * as m0023 from './migrations/0023-contact-email-match.ts';
import * as m0024 from './migrations/0024-recurring.ts';
import * as m0025 from './migrations/0025-property-access-notes.ts';
import * as m0026 from './migrations/0026-client-search.ts';
import * as m0027 from './migrations/0027-reports.ts';
import * as m0028 from './migrations/0028-reminders-calendar-feeds.ts';
import * as m0029 from './migrations/0029-billing.ts';
import * as m0030 from './migrations/0030-imports-exports.ts';

// Numbered, never edited once landed (DESIGN convention 6). Add new ones at the end.
const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-sales': m0002,
  '0003-scheduling': m0003,
  '0004-webhooks': m0004,
  '0005-files-comments': m0005,
  '0006-custom-fields': m0006,
  '0007-notifications': m0007,
  '0008-key-changes': m0008,
  '0009-search': m0009,
  '0010-retention': m0010,
  '0012-idempotency': m0012,
  '0013-invoice-money': m0013,
  '0014-sync': m0014,
  '0015-hub': m0015,
  '0016-accounts': m0016,
  '0017-settings': m0017,
  '0018-logo': m0018,
  '0019-home-indexes': m0019,
  '0020-status-order-indexes': m0020,
  '0021-queue-claim-indexes': m0021,
  '0022-payment-days': m0022,
  '0023-contact-email-match': m0023,
  '0024-recurring': m0024,
  '0025-property-access-notes': m0025,
  '0026-client-search': m0026,
  '0027-reports': m0027,
  '0028-reminders-calendar-feeds': m0028,
  '0029-billing': m0029,
  '0030-imports-exports': m0030,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies every pending migration; throws on the first failure. Returns the names applied. */
export async function migrate({ db }: Database): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
