import { type Static, Type } from 'typebox';
import { Nullable } from '../../kernel/schemas.ts';
import { NOTIFICATION_TYPES } from './templates.ts';

// Issue 22: which customer emails and SMS are sent, and their templates (the
// `notifications.<type>.*` and `templates.<type>.*` settings of `workspace set`).

const Template = (max: number) => Nullable(Type.String({ maxLength: max }));

/** A type's own templates; null = the default (given beside it). */
const OwnTemplates = Type.Object({ subject: Template(255), text: Template(20_000), html: Template(20_000), sms: Template(640) });

export const NotificationSetting = Type.Object({
  type: Type.Enum([...NOTIFICATION_TYPES]),
  email: Type.Boolean({ description: 'the customer email of this type is sent' }),
  sms: Type.Boolean({ description: 'the SMS is sent too (where the SMS plan and the contact consent allow it)' }),
  templates: OwnTemplates,
  defaults: Type.Object({ subject: Type.String(), text: Type.String(), sms: Type.String() }),
  placeholders: Type.Array(Type.String()),
});
export type NotificationSetting = Static<typeof NotificationSetting>;

export const NotificationSettingBody = Type.Object({
  type: Type.Enum([...NOTIFICATION_TYPES]),
  email: Type.Optional(Type.Boolean()),
  sms: Type.Optional(Type.Boolean()),
  // A template given as null (or empty) goes back to the default.
  templates: Type.Optional(Type.Partial(OwnTemplates)),
});
export type NotificationSettingBody = Static<typeof NotificationSettingBody>;

export const PreviewBody = Type.Object({
  type: Type.Enum([...NOTIFICATION_TYPES]),
  // Unsaved templates to render instead of the saved ones (the page's live preview).
  templates: Type.Optional(Type.Partial(OwnTemplates)),
});
export type PreviewBody = Static<typeof PreviewBody>;

export const Preview = Type.Object({ subject: Type.String(), text: Type.String(), html: Type.String(), sms: Type.String() });
