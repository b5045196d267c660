import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { fromJson, now, toJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { currencyForCountry } from '../../domain/format.ts';
import { notFound, ValidationError } from '../../kernel/errors.ts';
import { checkTemplate, NOTIFICATION_TYPES } from '../notifications/templates.ts';
import { insertUser } from '../users/users.repo.ts';
import { parseAutomationSetting } from '../automations/automations.rules.ts';
import { findWorkspace, insertWorkspace, slugTaken, updateWorkspace, type WorkspaceRow } from './workspace.repo.ts';

export { findWorkspace, type WorkspaceRow };

export type Settings = Record<string, string | number | boolean>;

/**
 * SPEC Limits: the monthly email allowance is "per workspace, by plan tier".
 * D29 fixes `standard` at 1000; an unknown plan gets standard's, and an
 * explicit `email_allowance` wins over the plan's.
 */
export const PLAN_EMAIL_ALLOWANCE: Record<string, number> = { free: 100, standard: 1000, pro: 10_000 };

/** D29 and docs/operator.md `workspace set`: what a new workspace starts with. */
export const DEFAULT_SETTINGS: Settings = {
  plan: 'standard',
  sms_provider: 'none',
  sms_plan: false,
  week_start: 'monday',
  ...Object.fromEntries(
    NOTIFICATION_TYPES.flatMap((t) => [
      [`notifications.${t}.email`, true],
      [`notifications.${t}.sms`, false],
    ]),
  ),
};

/** Columns `workspace set` and PUT /workspace write; the last five say how customers reach the business (A64). */
export const WORKSPACE_FIELDS = ['name', 'country', 'currency', 'timezone', 'industry', 'about', 'address', 'phone', 'email', 'website', 'tax_number'] as const;

/**
 * Why a workspace field's value is refused, or null (the one check of `workspace
 * create|set` and PUT /workspace). Empty clears, so it passes.
 */
export function workspaceFieldProblem(key: string, value: string): string | null {
  if (value === '') return null;
  if (key === 'country' && !/^[A-Za-z]{2}$/.test(value)) return 'must be a two-letter ISO code, e.g. US';
  if (key === 'currency' && !/^[A-Za-z]{3}$/.test(value)) return 'must be a three-letter ISO code, e.g. usd';
  if (key === 'timezone') {
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
    } catch {
      return `"${value.slice(0, 80)}" is not an IANA time zone, e.g. Europe/Paris`;
    }
  }
  if (key === 'email' && (value.length > 254 || !REPLY_TO.test(value))) return 'must be an email address, e.g. office@example.com';
  if (key === 'website' && (value.length > 2048 || !/^https?:\/\/[^\s/]+\.[^\s]+$/i.test(value))) return 'must be an http(s) address, e.g. https://example.com';
  if (key === 'address' && value.length > 1000) return 'must be at most 1000 characters';
  if (['name', 'industry', 'phone', 'tax_number'].includes(key) && value.length > 255) return 'must be at most 255 characters';
  if (key === 'about' && value.length > 10_000) return 'must be at most 10000 characters';
  return null;
}

const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48) || 'workspace';

const industryKey = (label: string | null | undefined) => (label ? label.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') : null);

/** The SPEC Workspace object. */
export function workspaceView(w: WorkspaceRow) {
  return {
    id: w.id,
    name: w.name,
    slug: w.slug,
    industry: w.industry,
    industry_key: w.industry_key,
    country: w.country,
    currency: w.currency,
    timezone: w.timezone,
    about: w.about,
    // A64: how customers reach the business (on PDFs, hub pages and emails).
    address: w.address,
    phone: w.phone,
    email: w.email,
    website: w.website,
    tax_number: w.tax_number,
  };
}

export function settingsOf(w: { settings: string | null }): Settings {
  const merged: Settings = { ...DEFAULT_SETTINGS, ...(fromJson<Settings>(w.settings) ?? {}) };
  merged.email_allowance ??= PLAN_EMAIL_ALLOWANCE[String(merged.plan)] ?? PLAN_EMAIL_ALLOWANCE.standard;
  return merged;
}

export interface NewWorkspace {
  name: string;
  slug?: string;
  country?: string;
  currency?: string;
  timezone?: string;
  industry?: string;
  owner: { email: string; first_name?: string; last_name?: string };
}

export async function createWorkspace(db: Kysely<DB>, input: NewWorkspace) {
  return db.transaction().execute(async (trx) => {
    const at = now();
    const base = input.slug ?? slugify(input.name);
    let workspace: WorkspaceRow | undefined;
    // A derived slug that is taken gets a suffix; an explicit one must be free.
    for (let n = 1; !workspace; n++) {
      const slug = n === 1 ? base : `${base}-${n}`;
      if (await slugTaken(trx, slug)) {
        if (input.slug) throw new Error(`slug "${slug}" is taken`);
        continue;
      }
      workspace = await insertWorkspace(trx, {
          name: input.name,
          slug,
          hash: randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8),
          industry: input.industry ?? null,
          industry_key: industryKey(input.industry),
          country: input.country?.toUpperCase() ?? null,
          currency: (input.currency ?? currencyForCountry(input.country)).toLowerCase(), // F101
          timezone: input.timezone ?? 'UTC',
          about: null,
          settings: toJson({}),
          created_at: at,
          updated_at: at,
      });
    }
    const owner = await insertUser(trx, {
        workspace_id: workspace.id,
        user_id: randomUUID(),
        email: input.owner.email.toLowerCase(),
        first_name: input.owner.first_name ?? null,
        last_name: input.owner.last_name ?? null,
        phone: null,
        role: 'owner',
        job_title: null,
        preferences: toJson({}),
        created_at: at,
        updated_at: at,
    });
    return { workspace, owner };
  });
}

/** `workspace set KEY=VALUE...`: workspace fields go to their columns, everything else to settings. */
export async function setWorkspace(db: Kysely<DB>, workspaceId: number, pairs: Record<string, string>) {
  const w = await findWorkspace(db, workspaceId);
  if (!w) throw notFound('Workspace');
  const fields: { name?: string } & Partial<Record<Exclude<(typeof WORKSPACE_FIELDS)[number], 'name'> | 'industry_key', string | null>> = {};
  const settings = fromJson<Settings>(w.settings) ?? {};
  // Every refusal at once, as a validation error naming the key (the API's 400, the CLI's message).
  const problems: { path: string[]; message: string }[] = [];
  for (const [key, raw] of Object.entries(pairs)) {
    if ((WORKSPACE_FIELDS as readonly string[]).includes(key)) {
      const field = key as (typeof WORKSPACE_FIELDS)[number];
      const problem = workspaceFieldProblem(key, raw);
      if (problem) {
        problems.push({ path: [key], message: problem });
        continue;
      }
      const value = raw === '' ? null : key === 'currency' ? raw.toLowerCase() : key === 'country' ? raw.toUpperCase() : raw;
      if (field === 'name') {
        if (!value?.trim()) problems.push({ path: ['name'], message: 'cannot be empty' });
        else fields.name = value;
      } else fields[field] = value;
      if (field === 'industry') fields.industry_key = industryKey(value);
    } else if (key === 'reply_to' && raw === '') delete settings.reply_to; // empty clears: replies go to From
    else {
      try {
        settings[key] = parseSetting(key, raw);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        problems.push({ path: [key], message: message.startsWith(`${key} `) ? message.slice(key.length + 1) : message.replace(/^[^:]*: /, '') });
      }
    }
  }
  if (problems.length) {
    const err = new ValidationError(problems);
    // The API words it per route (D4); direct callers (the CLI, tests) read the message.
    err.message = problems.map((p) => `${p.path.join('.')} ${p.message}`).join('; ');
    throw err;
  }
  const updated = await updateWorkspace(db, workspaceId, { ...fields, settings: toJson(settings), updated_at: now() });
  return { workspace: updated, settings: settingsOf(updated) };
}

/**
 * SPEC "Internal notifications", plus the one SPEC Notifications rule 4 asks for
 * (the admins learn that the month's email allowance is used up): the names
 * `internal.<name>` and `notify.<name>` may use.
 */
export const INTERNAL_NOTIFICATIONS = [
  'comments_mention',
  'comments_reply',
  'comments_new',
  'quotes_awaiting_response',
  'quote_customer_response', // E8: the customer answered a quote in the hub
  'invoices_sent',
  'appointments_soon',
  'email_allowance_used_up',
  'requests_new', // F330: a request came in from outside (the internal endpoint or the embedded form)
] as const;

const BOOL_KEY = new RegExp(
  `^(sms_plan|notifications\\.(${NOTIFICATION_TYPES.join('|')})\\.(email|sms)|internal\\.(${INTERNAL_NOTIFICATIONS.join('|')}))$`,
);

/** local@domain.tld: no spaces, quotes, brackets, commas or line breaks anywhere; a dotted domain. */
const REPLY_TO = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/** Validates one `workspace set` value against the settings it may name. */
export function parseSetting(key: string, raw: string): string | number | boolean {
  if (BOOL_KEY.test(key)) {
    if (raw !== 'true' && raw !== 'false') throw new Error(`${key} must be true or false`);
    return raw === 'true';
  }
  if (key === 'email_allowance') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error('email_allowance must be a whole number');
    return n;
  }
  if (key === 'week_start') {
    if (raw !== 'monday' && raw !== 'sunday') throw new Error('week_start must be monday or sunday');
    return raw;
  }
  if (key === 'sms_provider') {
    if (raw !== 'none' && raw !== 'log' && !/^https?:\/\//.test(raw)) throw new Error('sms_provider must be none, log or an http(s) URL');
    return raw;
  }
  if (key === 'plan') {
    if (!/^[a-z0-9_-]{1,40}$/.test(raw)) throw new Error('plan must be a short lowercase name, e.g. standard');
    return raw;
  }
  if (key === 'reply_to') {
    // E10: the Reply-To of customer emails (F102). One plain address: no display name, no list.
    if (raw.length > 254 || !REPLY_TO.test(raw)) throw new Error(`reply_to must be an email address, e.g. office@example.com (got "${raw.slice(0, 80)}")`);
    return raw;
  }
  if (key.startsWith('templates.')) {
    checkTemplate(key, raw);
    return raw;
  }
  if (key.startsWith('automations.')) return parseAutomationSetting(key, raw); // E24
  throw new Error(`unknown setting "${key}"`);
}
