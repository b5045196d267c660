// Loaded only on Reports, and only for a report with a chart (lazy): recharts is most of this chunk.
import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';

export interface ChartProps {
  data: Record<string, string | number>[];
  dataKey: string;
  series: { name: string; color: string }[];
  format: (n: number) => string;
}

/** A picture of the table below it (reports-page.tsx), hidden from screen readers. */
export default function ReportChart({ data, dataKey, series, format }: ChartProps) {
  return <BarChart h={240} data={data} dataKey={dataKey} series={series} valueFormatter={format} tickLine="y" yAxisProps={{ width: 88 }} aria-hidden="true" />;
}
