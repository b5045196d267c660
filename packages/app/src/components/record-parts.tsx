// What every record page shows beside the record itself: its custom fields, internal
// notes (with the team, for mentions) and files. Their parts read them once the record
// is in and drawn; started by usePrefetchRecordParts in the page's first render beside
// the record's own read, they arrive in the same round of requests instead of a second.
import { useQueryClient } from '@tanstack/react-query';
import { startTransition, useEffect, useState } from 'react';
import { prefetch } from '../lib/query.ts';
import { useCan } from '../lib/session.ts';
import { type CustomFieldModule, customFieldsQuery } from './custom-fields.tsx';
import { DocumentSection } from './documents.tsx';
import { Files, filesQuery } from './files.tsx';
import { Notes, notesQuery, usersQuery } from './notes.tsx';

export function usePrefetchRecordParts(moduleType: CustomFieldModule, moduleId: number): void {
  const client = useQueryClient();
  const can = useCan();
  prefetch(client, notesQuery(moduleType, moduleId));
  prefetch(client, usersQuery);
  prefetch(client, filesQuery(moduleType, moduleId));
  if (can('custom_fields:read')) prefetch(client, customFieldsQuery(moduleType));
}

/**
 * A record page's "Internal notes" and "Files" sections, drawn in a render of their own
 * after the page's other sections: React cannot cut one commit into slices, and the
 * page's sections with these in one commit were the longest task of a record page's
 * first load (A231). They come last on the page, so nothing drawn before them moves.
 */
export function RecordNotesAndFiles({ moduleType, moduleId, timezone }: { moduleType: CustomFieldModule; moduleId: number; timezone: string | null }) {
  const [drawn, setDrawn] = useState(false);
  useEffect(() => startTransition(() => setDrawn(true)), []);
  if (!drawn) return null;
  return (
    <>
      <DocumentSection title="Internal notes">
        <Notes moduleType={moduleType} moduleId={moduleId} timezone={timezone} />
      </DocumentSection>
      <DocumentSection title="Files">
        <Files moduleType={moduleType} moduleId={moduleId} />
      </DocumentSection>
    </>
  );
}
