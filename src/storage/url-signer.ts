import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { now } from '../db/json.ts';
import type { DB } from '../db/schema.ts';

const SECRET_NAME = 'file_url_signing_key';
export const SIGNED_URL_TTL_SECONDS = 60 * 60; // SPEC Limits: 1 hour

/**
 * D20: HMAC-SHA256 over bucket, key and expiry. The key is generated once and
 * kept in the database, so URLs survive a restart and every instance agrees.
 */
export class UrlSigner {
  private secret: Promise<Buffer> | null = null;

  constructor(private db: Kysely<DB>) {}

  /** Loads the key (once): a caller about to sign inside a transaction loads it before (SQLite has one connection). */
  key(): Promise<Buffer> {
    this.secret ??= this.loadOrCreate().catch((err) => {
      this.secret = null; // a database hiccup must not poison every later URL
      throw err;
    });
    return this.secret;
  }

  private async loadOrCreate(): Promise<Buffer> {
    // Insert-if-absent, then read: concurrent first starts all end up with the winner's key.
    await this.db
      .insertInto('service_secrets')
      .values({ name: SECRET_NAME, value: randomBytes(32).toString('hex'), created_at: now() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.selectFrom('service_secrets').select('value').where('name', '=', SECRET_NAME).executeTakeFirstOrThrow();
    return Buffer.from(row.value, 'hex');
  }

  async sign(bucket: string, key: string, expires: number): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(`${bucket}\n${key}\n${expires}`)
      .digest('hex');
  }

  /** True when `signature` is ours for this object and `expires` (Unix seconds) has not passed. */
  async verify(bucket: string, key: string, expires: string | undefined, signature: string | undefined, at = Date.now()): Promise<boolean> {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
    const expected = Buffer.from(await this.sign(bucket, key, Number(expires)), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return false;
    return Number(expires) * 1000 > at;
  }
}
