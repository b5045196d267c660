// The workspace's settings the pages need beyond /me's SPEC Workspace: its week
// (D9 `week_start`, in GET /api/v1/workspace, which every role may read). One
// query, shared with Settings > Company through the same cache key.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './api.ts';
import type { WeekStart } from './format.ts';

export const WORKSPACE_KEY = ['workspace'] as const;

export const useWorkspace = () => useQuery({ queryKey: WORKSPACE_KEY, queryFn: async () => (await unwrap(api.GET('/api/v1/workspace'))).data, staleTime: 60_000 });

/** The workspace's first day of the week, or undefined until it is known (pages wait for it). */
export function useWeekStart(): WeekStart | undefined {
  return useWorkspace().data?.week_start;
}
