import type { Kysely } from 'kysely';
import { emit } from '../../outbox/emit.ts';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { spanProblems } from '../../domain/weeks.ts';
import { checkReferences } from '../../db/references.ts';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { actsAsMember, forbidden } from '../../http/roles.ts';
import { notFound, ValidationError } from '../../kernel/errors.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { deleteEvent, eventCodec, findEventDetail, insertEvent, jobVisitProgress, listEvents, occurrenceOf, setAssignees, updateEvent } from './events.repo.ts';
import { skipOccurrence, updateJob } from '../jobs/jobs.service.ts';
import type { Event, EventCreate, EventDetail, EventQuery, EventStatusBody, EventUpdate } from './events.schemas.ts';

export interface EventsService extends CrudService<EventQuery, EventCreate, EventUpdate, Event, EventDetail> {
  setStatus(auth: AuthContext, id: number, body: EventStatusBody): Promise<EventDetail>;
}

/** The single GET shape: assignees `{id, first_name, last_name}` and the job (SPEC Notes per resource). */
export async function getEventDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<EventDetail> {
  const event = await findEventDetail(db, workspaceId, id);
  if (!event) throw notFound('Event');
  return event;
}

/** D4/D11 before any write: dates and times in order, references in the workspace. */
async function validate(db: Kysely<DB>, workspaceId: number, merged: Parameters<typeof spanProblems>[0], body: EventUpdate) {
  const problems = spanProblems(merged);
  if (problems.length) throw new ValidationError(problems);
  await checkReferences(db, workspaceId, {
    ids: { job_id: ['jobs', body.job_id], request_id: ['requests', body.request_id] },
    // As sent (lower-cased), so a detail's index points at the client's own array.
    users: { assignee_ids: body.assignee_ids?.map((u) => u.toLowerCase()) },
  });
}

/** UUIDs compare in lower case (ours are generated so); duplicates collapse. */
const normalizeAssignees = (ids: string[] | undefined) => (ids ? [...new Set(ids.map((u) => u.toLowerCase()))] : undefined);

/** E21: whether an update changes a visit's date, times or assignees (what detaches it from its series). */
function changesVisit(existing: EventDetail, fields: Omit<EventUpdate, 'assignee_ids'>, assignees: string[] | undefined): boolean {
  const keys = ['start_date', 'end_date', 'start_time', 'end_time', 'all_day'] as const;
  if (keys.some((k) => fields[k] !== undefined && fields[k] !== existing[k])) return true;
  if (!assignees) return false;
  const now = [...assignees].sort().join();
  return now !== [...existing.assignee_ids].map((u) => u.toLowerCase()).sort().join();
}

/** A14: a member's session changes only the status of a visit assigned to it. */
function requireMemberStatusChange(auth: AuthContext, event: EventDetail, fields: string[]): void {
  if (!actsAsMember(auth)) return;
  if (fields.some((f) => f !== 'status') || !event.assignees.some((a) => a.id.toLowerCase() === auth.userId.toLowerCase())) throw forbidden();
}

/**
 * F222: a visit's status moves its job on, in the visit's transaction and through the job's
 * own update (so `job_updated` fires as for any other change): a visit started, or completed
 * while others are still open, moves a draft or scheduled job to `in_progress`; once the last open visit of a job is completed (every
 * visit then completed, cancelled or missed, at least this one completed), the job becomes
 * `completed`. A completed or cancelled job is never moved back or reopened by its visits.
 */
async function advanceJob(trx: Kysely<DB>, workspaceId: number, event: EventDetail, horizonDays: number): Promise<void> {
  if (event.job_id === null || (event.status !== 'completed' && event.status !== 'in_progress')) return;
  const progress = await jobVisitProgress(trx, workspaceId, event.job_id);
  if (!progress || progress.status === 'completed' || progress.status === 'cancelled') return;
  if (event.status === 'completed' && progress.open === 0) await updateJob(trx, workspaceId, event.job_id, { status: 'completed' }, horizonDays);
  else if (progress.status === 'draft' || progress.status === 'scheduled') await updateJob(trx, workspaceId, event.job_id, { status: 'in_progress' }, horizonDays);
}

export function eventsService({ db, config }: AppContext): EventsService {
  return {
    list: (auth, query) => listEvents(db, auth.workspaceId, query),
    get: (auth, id) => getEventDetail(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        if (actsAsMember(auth)) throw forbidden(); // A14: members change the status of their visits only
        const { assignee_ids, ...fields } = body;
        const assignees = normalizeAssignees(assignee_ids) ?? [];
        await validate(trx, auth.workspaceId, body, body);
        const at = now();
        const { id } = await insertEvent(trx, {
          ...eventCodec.encode({ all_day: false, multi_day: false, type: 'event', status: 'scheduled', ...fields }),
          workspace_id: auth.workspaceId,
          created_by: auth.userId,
          created_at: at,
          updated_at: at,
        });
        await setAssignees(trx, auth.workspaceId, id, assignees);
        const event = await getEventDetail(trx, auth.workspaceId, id);
        await emit(trx, auth.workspaceId, 'new_event', 'events', event); // E14
        return event;
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        const existing = await findEventDetail(trx, auth.workspaceId, id);
        if (!existing) throw notFound('Event');
        requireMemberStatusChange(auth, existing, Object.keys(body).filter((k) => body[k as keyof EventUpdate] !== undefined));
        const { assignee_ids, ...fields } = body;
        const assignees = normalizeAssignees(assignee_ids);
        // The rules hold for the record as it will be, not only for the fields sent.
        await validate(trx, auth.workspaceId, { ...existing, ...fields }, body);
        // E21: a generated visit moved or reassigned by hand leaves its series' control.
        const detached = existing.occurrence_date !== null && !existing.detached && changesVisit(existing, fields, assignees) ? { detached: 1 } : {};
        await updateEvent(trx, auth.workspaceId, id, { ...eventCodec.encode(fields), ...detached, updated_at: now() });
        if (assignees) await setAssignees(trx, auth.workspaceId, id, assignees);
        const event = await getEventDetail(trx, auth.workspaceId, id);
        await emit(trx, auth.workspaceId, 'event_updated', 'events', event); // E14
        if (fields.status !== undefined && fields.status !== existing.status) await advanceJob(trx, auth.workspaceId, event, config.recurringHorizonDays);
        return event;
      }),
    setStatus: (auth, id, { status }) =>
      transact(db, auth, async (trx) => {
        // SPEC States: every allowed value may follow every other.
        if (actsAsMember(auth)) requireMemberStatusChange(auth, await getEventDetail(trx, auth.workspaceId, id), ['status']);
        if (!(await updateEvent(trx, auth.workspaceId, id, { status, updated_at: now() }))) throw notFound('Event');
        const event = await getEventDetail(trx, auth.workspaceId, id);
        await emit(trx, auth.workspaceId, 'event_updated', 'events', event); // E14: status included
        await advanceJob(trx, auth.workspaceId, event, config.recurringHorizonDays);
        return event;
      }),
    remove: async (auth, id) => {
      if (actsAsMember(auth)) {
        await getEventDetail(db, auth.workspaceId, id); // 404 first: another workspace's id stays missing
        throw forbidden();
      }
      // D12: permanent, with its upload links and comments; the assignees go by cascade.
      await deleteWithAttachments(db, auth, 'event', id, 'Event', async (trx) => {
        const occurrence = await occurrenceOf(trx, auth.workspaceId, id);
        const gone = await deleteEvent(trx, auth.workspaceId, id);
        if (gone) await emit(trx, auth.workspaceId, 'event_deleted', 'events', { id }); // E14
        if (gone && occurrence) await skipOccurrence(trx, auth.workspaceId, occurrence.job_id, occurrence.occurrence_date); // E21
        return gone;
      });
    },
  };
}
