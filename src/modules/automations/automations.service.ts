import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { AuthContext } from '../../http/auth.ts';
import { forbidden } from '../../http/roles.ts';
import { transact } from '../../http/transact.ts';
import { type Detail, notFound, ValidationError } from '../../kernel/errors.ts';
import { findWorkspace, settingsOf, setWorkspace } from '../workspace/workspace.service.ts';
import { type Automations, automationsOf, DAY_LISTS, type DayList, dayListProblems, settingKey } from './automations.rules.ts';
import type { AutomationsBody } from './automations.schemas.ts';

/** E24: owners' and admins' sessions only (a manager's or member's session holds `workspace:read` for other reasons); keys by scope. */
function requireAdmin(auth: AuthContext): void {
  if (auth.role !== undefined && auth.role !== 'owner' && auth.role !== 'admin') throw forbidden();
}

export async function getAutomations(db: Kysely<DB>, auth: AuthContext): Promise<Automations> {
  requireAdmin(auth);
  const w = await findWorkspace(db, auth.workspaceId);
  if (!w) throw notFound('Workspace');
  return automationsOf(settingsOf(w));
}

/** Every problem of the body at once (out of range, repeated, too many), each naming its field and item; nothing is written. */
export function updateAutomations(db: Kysely<DB>, auth: AuthContext, body: AutomationsBody): Promise<Automations> {
  requireAdmin(auth);
  const problems: Detail[] = [];
  const pairs: Record<string, string> = {};
  for (const name of Object.keys(DAY_LISTS) as DayList[]) {
    const days = body[name];
    if (days === undefined) continue;
    problems.push(...dayListProblems(name, days));
    pairs[settingKey(name)] = days.join(',');
  }
  if (body.visit_reminder_hours !== undefined) pairs[settingKey('visit_reminder_hours')] = String(body.visit_reminder_hours);
  if (problems.length) throw new ValidationError(problems);
  return transact(db, auth, async (trx) => automationsOf((await setWorkspace(trx, auth.workspaceId, pairs)).settings));
}
