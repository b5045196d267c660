// Who is signed in: GET /api/v1/me, read once and shared through the query cache.
import type { components } from '@fieldwork/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { hasScope } from '../../../../src/domain/scopes.ts';
import { api, isUnauthorized, setCsrfToken, unwrap } from './api.ts';
import { claimDevice, forgetDevice, openOfflineStore, ownerOf, rememberedMe } from './offline-store.ts';
import { isNetworkError, startQueue } from './write-queue.ts';

export type Me = components['schemas']['Me'];
export type Role = Me['user']['role'];

export const ME_KEY = ['me'] as const;

export async function fetchMe(): Promise<Me> {
  const me = (await unwrap(api.GET('/api/v1/me'))).data;
  setCsrfToken(me.csrf_token);
  return me;
}

/** The device is `me`'s now (another person's data is wiped, A12) and their waiting writes are sent. */
async function ownDevice(me: Me): Promise<void> {
  await claimDevice(me);
  await startQueue(ownerOf(me));
}

/**
 * The signed-in person, or null when nobody is (401). With no network, the person
 * last signed in on this device (F322): My day then opens from what it saved.
 */
export function useSession() {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async () => {
      openOfflineStore(); // opened while /me is read: the session waits for both (ownDevice)
      try {
        const me = await fetchMe();
        await ownDevice(me);
        return me;
      } catch (err) {
        if (isUnauthorized(err)) {
          setCsrfToken(null);
          return null;
        }
        const remembered = isNetworkError(err) ? await rememberedMe() : null;
        if (!remembered) throw err;
        setCsrfToken(remembered.csrf_token);
        await startQueue(ownerOf(remembered));
        return remembered;
      }
    },
    staleTime: 60_000,
    networkMode: 'always', // offline too: the remembered person rather than a paused query
  });
}

/** The signed-in person; only under RequireSession, which renders nothing until there is one. */
export function useMe(): Me {
  const { data } = useSession();
  if (!data) throw new Error('useMe outside RequireSession');
  return data;
}

/** True once the person signed out here: the next sign-in starts at Home, not at the page they left. */
export const signedOut = { value: false };

/** After signing in, switching workspace or out: forget every cached answer of the old session. */
export function useResetSession() {
  const client = useQueryClient();
  return async (me: Me | null) => {
    signedOut.value = me === null;
    setCsrfToken(me?.csrf_token);
    if (me) await ownDevice(me);
    else {
      await startQueue(null);
      await forgetDevice(); // signed out: nothing of theirs stays on the device
    }
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] });
    client.setQueryData(ME_KEY, me);
  };
}

/** What each role may open (A1's table); the shell hides the rest (A2). */
export const OFFICE_ROLES: readonly Role[] = ['owner', 'admin', 'manager'];
export const isOffice = (role: Role) => OFFICE_ROLES.includes(role);
export const isAdmin = (role: Role) => role === 'owner' || role === 'admin';

/**
 * Whether the session's scopes (GET /api/v1/me) allow `scope`, read as the server
 * reads them (src/domain/scopes.ts). Pages hide what this refuses; the API refuses it anyway.
 */
export function useCan(): (scope: string) => boolean {
  const scopes = useMe().scopes;
  return (scope) => hasScope(scopes, scope);
}
