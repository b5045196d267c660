// The one status badge (A13): each status has a tone, so statuses differ by colour as
// well as by their words, and every tone's text has at least 6.5:1 contrast on its
// background (axe: color-contrast asks 4.5:1). The tones and their statuses: A151.
import { Badge } from '@mantine/core';
import { statusLabel } from '../lib/format.ts';

const TONES = {
  gray: { bg: '#e9ecef', fg: '#343a40' },
  blue: { bg: '#dbe9ff', fg: '#1a4a8c' },
  green: { bg: '#d3f4dc', fg: '#1d5e2e' },
  red: { bg: '#ffe0e0', fg: '#9b1c1c' },
  amber: { bg: '#fff0c2', fg: '#7a4b00' },
  violet: { bg: '#ece4ff', fg: '#5230a0' },
  slate: { bg: '#dde3ea', fg: '#2e3a46' },
} as const;
export type Tone = keyof typeof TONES;

const TONE_OF: Record<string, Tone> = {
  // not started
  draft: 'gray',
  archived: 'gray',
  // waiting on someone
  new: 'blue',
  pending: 'blue',
  sent: 'blue',
  scheduled: 'blue',
  awaiting_response: 'blue',
  submitted: 'blue',
  // under way or partly done
  in_progress: 'amber',
  partially_paid: 'amber',
  awaiting_deposit: 'amber',
  responded: 'violet',
  // done well
  paid: 'green',
  accepted: 'green',
  completed: 'green',
  approved: 'green',
  // needs attention
  overdue: 'red',
  declined: 'red',
  rejected: 'red',
  missed: 'red',
  // ended without the work
  cancelled: 'slate',
  expired: 'slate',
};

export const toneOf = (status: string): Tone => TONE_OF[status] ?? 'gray';

export function StatusBadge({ status }: { status: string }) {
  const tone = TONES[toneOf(status)];
  return (
    <Badge
      data-tone={toneOf(status)}
      variant="outline"
      radius="sm"
      // Never cut to "DR…" in a narrow column: the badge keeps its whole label.
      style={{ flexShrink: 0, overflow: 'visible', background: tone.bg, color: tone.fg, borderColor: tone.fg }}
      styles={{ label: { overflow: 'visible' } }}
    >
      {statusLabel(status)}
    </Badge>
  );
}
