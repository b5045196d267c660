import { logoUrl } from '../workspace/logo.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { AuthContext } from '../../http/auth.ts';
import { transact } from '../../http/transact.ts';
import { invalidField, notFound, ValidationError } from '../../kernel/errors.ts';
import { findWorkspace, type Settings, settingsOf, setWorkspace, type WorkspaceRow } from '../workspace/workspace.service.ts';
import type { NotificationSetting, NotificationSettingBody, PreviewBody } from './settings.schemas.ts';
import { businessValues, checkTemplate, defaultTemplate, NOTIFICATION_TYPES, type NotificationType, PLACEHOLDERS, render, TEMPLATE_PARTS } from './templates.ts';

function settingOf(type: NotificationType, settings: Settings): NotificationSetting {
  const own = (part: string) => {
    const v = settings[`templates.${type}.${part}`];
    return typeof v === 'string' && v.trim() ? v : null;
  };
  return {
    type,
    email: settings[`notifications.${type}.email`] === true,
    sms: settings[`notifications.${type}.sms`] === true,
    templates: { subject: own('subject'), text: own('text'), html: own('html'), sms: own('sms') },
    defaults: { subject: defaultTemplate(type, 'subject'), text: defaultTemplate(type, 'text'), sms: defaultTemplate(type, 'sms') },
    placeholders: [...PLACEHOLDERS[type]],
  };
}

async function workspaceOf(db: Kysely<DB>, workspaceId: number): Promise<WorkspaceRow> {
  const w = await findWorkspace(db, workspaceId);
  if (!w) throw notFound('Workspace');
  return w;
}

/** GET /notification-settings: every type, in NOTIFICATION_TYPES order. */
export async function notificationSettings(db: Kysely<DB>, workspaceId: number): Promise<NotificationSetting[]> {
  const settings = settingsOf(await workspaceOf(db, workspaceId));
  return NOTIFICATION_TYPES.map((t) => settingOf(t, settings));
}

/** PUT /notification-settings: one type's switches and templates, through `workspace set`'s own checks. */
export function updateNotificationSetting(db: Kysely<DB>, auth: AuthContext, body: NotificationSettingBody): Promise<NotificationSetting> {
  const pairs: Record<string, string> = {};
  if (body.email !== undefined) pairs[`notifications.${body.type}.email`] = String(body.email);
  if (body.sms !== undefined) pairs[`notifications.${body.type}.sms`] = String(body.sms);
  for (const [part, value] of Object.entries(body.templates ?? {})) pairs[`templates.${body.type}.${part}`] = value ?? '';
  return transact(db, auth, async (trx) => {
    try {
      const { settings } = await setWorkspace(trx, auth.workspaceId, pairs);
      return settingOf(body.type, settings);
    } catch (err) {
      // The settings' keys back to the body's fields: templates.<type>.text -> templates.text.
      if (!(err instanceof ValidationError) || !err.details) throw err;
      throw new ValidationError(
        err.details.map((d) => {
          const key = String(d.path[0]);
          return { ...d, path: key.startsWith('templates.') ? ['templates', key.split('.')[2]] : [key.split('.')[2] ?? key] };
        }),
      );
    }
  });
}

/** Sample documents' values (the preview shows a template's effect without sending or touching a record). */
const SAMPLE = {
  contact_name: 'Sam Sample',
  contact_first_name: 'Sam',
  contact_email: 'sam@example.com',
  link: 'https://example.com/hub/sample',
  number: '1001',
  name: 'Kitchen sink replacement',
  date: 'March 2, 2026',
  expire_on: 'April 1, 2026',
  due_date: 'April 1, 2026',
  line_items: '- Sink: 1 x $250.00 = $250.00\n- Labour: 2 x $80.00 = $160.00',
  subtotal: '$410.00',
  discount: '',
  tax_rate: '8.25%',
  tax: '$33.83',
  total: '$443.83',
  currency: 'USD',
  deposit: '$100.00',
  amount_paid: '$0.00',
  balance: '$443.83',
  message: 'Thank you for choosing us.',
  payment_instructions: 'Pay by bank transfer within 30 days.',
  time: '9:00 AM',
  when: 'on Monday, March 2 at 9:00 AM',
  address: '12 Sample Street, Springfield',
};

/** POST /notification-settings/preview: a type rendered against a sample document, with the workspace's details. */
export async function previewNotification(db: Kysely<DB>, workspaceId: number, body: PreviewBody, publicUrl: string) {
  const w = await workspaceOf(db, workspaceId);
  const settings: Record<string, unknown> = { ...settingsOf(w) };
  for (const part of TEMPLATE_PARTS) {
    const draft = body.templates?.[part];
    if (draft === undefined) continue;
    const key = `templates.${body.type}.${part}`;
    checkTemplateField(key, part, draft ?? '');
    settings[key] = draft ?? '';
  }
  return render(body.type, { ...SAMPLE, ...businessValues(w) }, settings, logoUrl(publicUrl, w));
}

/** checkTemplate's refusal as the API's validation error on `templates.<part>`. */
function checkTemplateField(key: string, part: string, value: string): void {
  try {
    checkTemplate(key, value);
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/^[^:]*: /, '') : String(err);
    throw invalidField(['templates', part], message);
  }
}
