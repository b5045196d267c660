import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import type { DB } from '../../db/schema.ts';
import { userRefs } from '../../db/references.ts';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { actsAsMember, forbidden, requireOwn } from '../../http/roles.ts';
import { notFound } from '../../kernel/errors.ts';
import type { PageResult } from '../../db/list-query.ts';
import { timesheetEntries } from '../time-entries/time-entries.repo.ts';
import { findTimesheet, listTimesheets, setTimesheetStatus } from './timesheets.repo.ts';
import type { Timesheet, TimesheetDetail, TimesheetQuery, TimesheetStatusBody } from './timesheets.schemas.ts';

// Timesheets are made and totalled by the time entries service (D9); the API only
// reads them and sets their status (SPEC Notes per resource).
export interface TimesheetsService {
  list(auth: AuthContext, query: TimesheetQuery): Promise<PageResult<Timesheet>>;
  get(auth: AuthContext, id: number): Promise<TimesheetDetail>;
  setStatus(auth: AuthContext, id: number, body: TimesheetStatusBody): Promise<TimesheetDetail>;
}

/** D9: the single GET with its entries and `user: {id, first_name, last_name, email}`. */
export async function getTimesheetDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<TimesheetDetail> {
  const sheet = await findTimesheet(db, workspaceId, id);
  if (!sheet) throw notFound('Timesheet');
  const [time_entries, users] = await Promise.all([timesheetEntries(db, workspaceId, id), userRefs(db, workspaceId, [sheet.user_id])]);
  return { ...sheet, time_entries, user: users.get(sheet.user_id) ?? null };
}

export function timesheetsService({ db }: AppContext): TimesheetsService {
  return {
    // A14: a member's session sees its own timesheets, and may submit them (draft, pending), not approve them.
    list: (auth, query) => listTimesheets(db, auth.workspaceId, actsAsMember(auth) ? { ...query, user_id: auth.userId } : query),
    get: async (auth, id) => {
      const sheet = await getTimesheetDetail(db, auth.workspaceId, id);
      requireOwn(auth, sheet.user_id);
      return sheet;
    },
    setStatus: (auth, id, { status }) =>
      transact(db, auth, async (trx) => {
        if (actsAsMember(auth)) {
          const sheet = await findTimesheet(trx, auth.workspaceId, id);
          if (!sheet) throw notFound('Timesheet');
          requireOwn(auth, sheet.user_id);
          if (status === 'approved' || status === 'rejected') throw forbidden();
        }
        // SPEC States: every allowed value may follow every other; entries stay editable.
        if (!(await setTimesheetStatus(trx, auth.workspaceId, id, status))) throw notFound('Timesheet');
        return getTimesheetDetail(trx, auth.workspaceId, id);
      }),
  };
}
