// Loaded only on Home (lazy): recharts is most of this chunk.
import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { monthLabel } from './activity.ts';

export default function PaymentsChart({ months, format }: { months: { month: string; amount: number }[]; format: (n: number) => string }) {
  const data = months.map((m) => ({ month: monthLabel(m.month), Payments: m.amount }));
  // A picture of the table beside it (home-page.tsx), hidden from screen readers.
  return <BarChart h={240} data={data} dataKey="month" series={[{ name: 'Payments', color: 'blue.8' }]} valueFormatter={format} tickLine="y" aria-hidden="true" />;
}
