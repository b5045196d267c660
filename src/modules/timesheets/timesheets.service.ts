import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import type { DB } from '../../db/schema.ts';
import { userRefs } from '../../db/references.ts';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
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
    list: (auth, query) => listTimesheets(db, auth.workspaceId, query),
    get: (auth, id) => getTimesheetDetail(db, auth.workspaceId, id),
    setStatus: (auth, id, { status }) =>
      transact(db, auth, async (trx) => {
        // SPEC States: every allowed value may follow every other; entries stay editable.
        if (!(await setTimesheetStatus(trx, auth.workspaceId, id, status))) throw notFound('Timesheet');
        return getTimesheetDetail(trx, auth.workspaceId, id);
      }),
  };
}
