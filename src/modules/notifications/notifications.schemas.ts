import { type Static, Type } from 'typebox';
import { Email, Id } from '../../kernel/schemas.ts';
import { SENDABLE_TYPES } from './templates.ts';

/** SPEC Notifications: the body (`module_id` is the contact's id for `hub_link_to_customer`, A88). The channel cannot be chosen (rule 3): other fields are ignored (D5). */
export const NotificationBody = Type.Object({
  type: Type.Enum([...SENDABLE_TYPES]),
  module_id: Id,
});
export type NotificationBody = Static<typeof NotificationBody>;

/** SPEC Notifications: the 201 `data`. `queued` means handed to the pipeline, not delivered. */
export const NotificationQueued = Type.Object({
  queued: Type.Literal(true),
  type: Type.Enum([...SENDABLE_TYPES]),
  module: Type.Enum(['quotes', 'invoices', 'events', 'contacts']),
  module_id: Id,
  recipient: Type.Object({ contact_id: Id, email: Email }),
});
export type NotificationQueued = Static<typeof NotificationQueued>;
