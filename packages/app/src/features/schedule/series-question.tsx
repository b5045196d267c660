// The question a change to a visit of a series asks (A7): a drag's, in its own
// dialog, and the "Edit" form's, in place of its Save button.
import { Button, Group, Stack, Text } from '@mantine/core';
import { formatDate } from '../../lib/format.ts';
import type { Visit } from './data.ts';

export type SeriesScope = 'one' | 'following';

/** "Only this visit" or "This and following visits": what a change to a visit of a series changes. */
export function SeriesQuestion({ visit, onAnswer }: { visit: Visit; onAnswer: (scope: SeriesScope | null) => void }) {
  return (
    <Stack gap="sm">
      <Text>{`${visit.name ?? 'This visit'} on ${formatDate(visit.occurrence_date ?? visit.start_date)} is one of a series. Change only this visit, or this one and every visit after it?`}</Text>
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={() => onAnswer(null)}>
          Cancel
        </Button>
        <Button variant="default" onClick={() => onAnswer('one')}>
          Only this visit
        </Button>
        <Button onClick={() => onAnswer('following')}>This and following visits</Button>
      </Group>
    </Stack>
  );
}

