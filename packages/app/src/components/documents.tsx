// The one document page and the one line-item editor that quotes, jobs and
// invoices share (issue item 6). Totals come from src/domain/totals.ts, the very
// D7 code the server runs, so what the editor shows is what the server stores.
import { ActionIcon, Anchor, Button, Checkbox, Group, NumberInput, Paper, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { ComboSelect } from './combo-select.tsx';
import { useQuery } from '@tanstack/react-query';
import { memo, type ReactNode, useCallback, useRef, useState } from 'react';
import { Link } from 'react-router';
import { computeTotals, lineTotalCents } from '../../../../src/domain/totals.ts';
import { api, unwrap } from '../lib/api.ts';
import { money, type WorkspaceLike } from '../lib/format.ts';
import { StatusBadge } from './status-badge.tsx';
import { GrowingTextarea } from './growing-textarea.tsx';

export interface EditableLine {
  id?: string;
  name: string;
  description: string;
  quantity: number;
  unitPrice: number;
  taxable: boolean;
  optional: boolean;
  /** E26: what a unit costs the business (job costing); the office's eyes only. */
  unit_cost?: number | null;
}

export interface Pricing {
  discount: number;
  discount_unit: '%' | '$';
  tax_rate: number;
  tax_rate_id: number | null;
  deposit: number;
}

const PRICING_FIELDS = new Set(['discount', 'discount_unit', 'tax_rate', 'tax_rate_id', 'deposit']);

/** Where an API error about a pricing field shows in a form that keeps them under `pricing` (useApiForm's errorPath). */
export const pricingErrorPath = (apiField: string) => (PRICING_FIELDS.has(apiField) ? `pricing.${apiField}` : apiField);

/** The pricing fields of a create or update body. */
export const pricingBody = (p: Pricing) => ({ discount: p.discount, discount_unit: p.discount_unit, tax_rate: p.tax_rate, tax_rate_id: p.tax_rate_id, deposit: p.deposit });

/** The messages of a form's errors under `pricing.`, by pricing field. */
export function pricingErrors(errors: Record<string, unknown>): Partial<Record<keyof Pricing, string>> {
  const out: Partial<Record<keyof Pricing, string>> = {};
  for (const [path, message] of Object.entries(errors)) {
    if (path.startsWith('pricing.') && typeof message === 'string') out[path.slice('pricing.'.length) as keyof Pricing] = message;
  }
  return out;
}

interface StoredLine {
  id: string;
  name: string;
  description: string | null;
  quantity: number;
  unitPrice: number;
  taxable: boolean;
  optional: boolean;
  unit_cost?: number;
}

export const toEditable = (items: readonly StoredLine[]): EditableLine[] => items.map((i) => ({ ...i, description: i.description ?? '' }));
/** The body's `line_items`: an empty description is no description. */
export const toBody = (items: readonly EditableLine[]) =>
  items.map(({ unit_cost, ...i }) => ({ ...i, description: i.description.trim() || null, ...(typeof unit_cost === 'number' ? { unit_cost } : {}) }));

const num = (v: string | number) => (typeof v === 'number' ? v : Number(v) || 0);

/** Subtotal, discount, tax and total in the workspace currency; cents in. */
export function TotalsTable({ items, pricing, workspace }: { items: readonly EditableLine[] | readonly StoredLine[]; pricing: Pricing; workspace: WorkspaceLike }) {
  let totals = { subtotal: 0, discount: 0, tax: 0, total: 0 };
  try {
    totals = computeTotals(
      items.map((i) => ({ quantity: num(i.quantity), unitPrice: num(i.unitPrice), taxable: i.taxable, optional: i.optional })),
      { discount: num(pricing.discount), discount_unit: pricing.discount_unit, tax_rate: num(pricing.tax_rate) },
    );
  } catch {
    // A total past the D7 ceiling: the server refuses it with its own message on save.
  }
  const rows: [string, number][] = [
    ['Subtotal', totals.subtotal],
    ['Discount', totals.discount],
    ['Tax', totals.tax],
    ['Total', totals.total],
  ];
  return (
    <Table maw={360} ml="auto" aria-label="Totals" data-testid="totals">
      <Table.Tbody>
        {rows.map(([label, cents]) => (
          <Table.Tr key={label}>
            <Table.Th scope="row">{label}</Table.Th>
            <Table.Td ta="right" data-total={label.toLowerCase()}>
              {label === 'Discount' && cents > 0 ? '−' : ''}
              {money(cents / 100, workspace)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Line items as the customer reads them, then the totals. */
export function DocumentView({ items, pricing, workspace }: { items: readonly StoredLine[]; pricing: Pricing; workspace: WorkspaceLike }) {
  return (
    <Paper withBorder p="md">
      <Table aria-label="Line items" layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Item</Table.Th>
            <Table.Th w={60} ta="right">
              Qty
            </Table.Th>
            <Table.Th ta="right" visibleFrom="sm">
              Unit price
            </Table.Th>
            <Table.Th ta="right">Amount</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((i) => (
            <Table.Tr key={i.id}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                <Text fw={600} size="sm">
                  {i.name}
                  {i.optional ? ' (optional)' : ''}
                </Text>
                {i.description && (
                  <Text size="sm" c="dimmed">
                    {i.description}
                  </Text>
                )}
              </Table.Td>
              <Table.Td ta="right">{i.quantity}</Table.Td>
              <Table.Td ta="right" visibleFrom="sm">
                {money(i.unitPrice, workspace)}
              </Table.Td>
              <Table.Td ta="right">{money(lineTotalCents(i) / 100, workspace)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <TotalsTable items={items} pricing={pricing} workspace={workspace} />
    </Paper>
  );
}

/** A record page's frame: status, actions and the sections below. */
export function DocumentSection({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <Stack gap="xs" component="section" aria-label={title}>
      <Group justify="space-between">
        <Title order={2} size="h4">
          {title}
        </Title>
        {actions}
      </Group>
      {children}
    </Stack>
  );
}

export interface LineItemEditorProps {
  items: EditableLine[];
  onChange: (items: EditableLine[]) => void;
  pricing: Pricing;
  onPricingChange: (pricing: Pricing) => void;
  /** The API's errors about pricing fields (pricingErrors of the form's errors). */
  pricingErrors?: Partial<Record<keyof Pricing, string>>;
  workspace: WorkspaceLike;
}

interface LineRowProps {
  item: EditableLine;
  index: number;
  count: number;
  workspace: WorkspaceLike;
  set: (index: number, patch: Partial<EditableLine>) => void;
  move: (from: number, to: number) => void;
  remove: (index: number) => void;
  drag: { current: number | null };
}

// Memoized with stable callbacks: a keystroke re-renders its own row, not all of
// them (typing stays fast with 100 lines, issue item 8).
const LineRow = memo(function LineRow({ item, index, count, workspace, set, move, remove, drag }: LineRowProps) {
  return (
    <Paper
      withBorder
      p="sm"
      draggable
      onDragStart={() => {
        drag.current = index;
      }}
      onDragOver={(e) => e.preventDefault()}
      onDrop={() => {
        if (drag.current !== null) move(drag.current, index);
        drag.current = null;
      }}
      aria-label={`Line item ${index + 1}`}
      role="group"
      data-line={index}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
        <TextInput label="Name" required value={item.name} onChange={(e) => set(index, { name: e.currentTarget.value })} />
        <GrowingTextarea label="Description" minRows={1} value={item.description} onChange={(e) => set(index, { description: e.currentTarget.value })} />
        <NumberInput label="Quantity" min={0} decimalScale={4} value={item.quantity} onChange={(v) => set(index, { quantity: num(v) })} />
        <NumberInput label="Unit price" min={0} decimalScale={2} value={item.unitPrice} onChange={(v) => set(index, { unitPrice: num(v) })} />
        {/* A172: the cost is the office's (job costing); customers' documents never show it. Empty: none. */}
        <NumberInput
          label="Unit cost"
          min={0}
          decimalScale={2}
          value={item.unit_cost ?? ''}
          onChange={(v) => set(index, { unit_cost: v === '' ? null : num(v) })}
        />
      </SimpleGrid>
      <Group mt="xs" justify="space-between" wrap="wrap">
        <Group gap="md">
          <Checkbox label="Taxable" checked={item.taxable} onChange={(e) => set(index, { taxable: e.currentTarget.checked })} />
          <Checkbox label="Optional" checked={item.optional} onChange={(e) => set(index, { optional: e.currentTarget.checked })} />
        </Group>
        <Group gap={4}>
          <Text size="sm" c="dimmed" mr="xs">
            {money(lineTotalCents({ quantity: num(item.quantity), unitPrice: num(item.unitPrice) }) / 100, workspace)}
          </Text>
          <ActionIcon variant="subtle" aria-label={`Move line ${index + 1} up`} disabled={index === 0} onClick={() => move(index, index - 1)}>
            ↑
          </ActionIcon>
          <ActionIcon variant="subtle" aria-label={`Move line ${index + 1} down`} disabled={index === count - 1} onClick={() => move(index, index + 1)}>
            ↓
          </ActionIcon>
          <Button variant="subtle" color="red" size="compact-sm" aria-label={`Remove line ${index + 1}`} onClick={() => remove(index)}>
            Remove
          </Button>
        </Group>
      </Group>
    </Paper>
  );
});

/** Line items (add, remove, move by keyboard and by dragging, add from the price book) and the pricing fields. */
export function LineItemEditor({ items, onChange, pricing, onPricingChange, pricingErrors: errors = {}, workspace }: LineItemEditorProps) {
  const [bookSearch, setBookSearch] = useState('');
  const services = useQuery({
    queryKey: ['services', 'pick', bookSearch],
    queryFn: () => unwrap(api.GET('/api/v1/services', { params: { query: { per_page: 20, ...(bookSearch ? { search: bookSearch } : {}), sort_by: 'name', sort_direction: 'asc' } } })),
  });
  const taxRates = useQuery({
    queryKey: ['tax-rates', 'pick'],
    queryFn: () => unwrap(api.GET('/api/v1/tax-rates', { params: { query: { per_page: 100, sort_by: 'name', sort_direction: 'asc' } } })),
  });
  const drag = useRef<number | null>(null);
  // The rows' callbacks read the latest items through refs, so they never change.
  const latest = useRef({ items, onChange });
  latest.current = { items, onChange };
  const set = useCallback((index: number, patch: Partial<EditableLine>) => {
    const { items: now, onChange: change } = latest.current;
    change(now.map((it, i) => (i === index ? { ...it, ...patch } : it)));
  }, []);
  const move = useCallback((from: number, to: number) => {
    const { items: now, onChange: change } = latest.current;
    if (to < 0 || to >= now.length || from === to) return;
    const next = [...now];
    const [it] = next.splice(from, 1);
    next.splice(to, 0, it);
    change(next);
  }, []);
  const remove = useCallback((index: number) => latest.current.onChange(latest.current.items.filter((_, i) => i !== index)), []);
  const blank: EditableLine = { name: '', description: '', quantity: 1, unitPrice: 0, taxable: true, optional: false };

  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Line items
      </Title>
      {items.map((item, index) => (
        <LineRow key={item.id ?? `new-${index}`} item={item} index={index} count={items.length} workspace={workspace} set={set} move={move} remove={remove} drag={drag} />
      ))}
      <Group align="end" wrap="wrap">
        <Button variant="default" onClick={() => onChange([...items, blank])}>
          Add line item
        </Button>
        <ComboSelect
          label="Add from price book"
          placeholder="Search services"
          searchable
          clearable
          value={null}
          searchValue={bookSearch}
          onSearchChange={setBookSearch}
          filter={({ options }) => options}
          data={(services.data?.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
          onChange={(value) => {
            const s = services.data?.data.find((x) => String(x.id) === value);
            if (s) onChange([...items, { name: s.name, description: s.description ?? '', quantity: 1, unitPrice: s.price, taxable: s.taxable, optional: false }]);
            setBookSearch('');
          }}
          maw={320}
        />
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xs">
        <Group gap={4} align="end" wrap="nowrap">
          <NumberInput label="Discount" min={0} decimalScale={2} value={pricing.discount} error={errors.discount} onChange={(v) => onPricingChange({ ...pricing, discount: num(v) })} style={{ flex: 1 }} />
          <ComboSelect
            aria-label="Discount unit"
            w={70}
            data={['%', '$']}
            value={pricing.discount_unit}
            error={errors.discount_unit}
            allowDeselect={false}
            onChange={(v) => onPricingChange({ ...pricing, discount_unit: v === '$' ? '$' : '%' })}
          />
        </Group>
        <ComboSelect
          label="Tax rate"
          placeholder="No tax"
          clearable
          data={(taxRates.data?.data ?? []).map((t) => ({ value: String(t.id), label: `${t.name} (${t.rate}%)` }))}
          value={pricing.tax_rate_id === null ? null : String(pricing.tax_rate_id)}
          error={errors.tax_rate_id ?? errors.tax_rate}
          onChange={(v) => {
            const t = taxRates.data?.data.find((x) => String(x.id) === v);
            onPricingChange({ ...pricing, tax_rate_id: t ? t.id : null, tax_rate: t ? t.rate : 0 });
          }}
        />
        <NumberInput label="Deposit" min={0} decimalScale={2} value={pricing.deposit} error={errors.deposit} onChange={(v) => onPricingChange({ ...pricing, deposit: num(v) })} />
      </SimpleGrid>
      <TotalsTable items={items} pricing={pricing} workspace={workspace} />
    </Stack>
  );
}

export interface RecordRow {
  key: number;
  href: string;
  title: string;
  status: string;
  amount?: string;
}

/** A section of a record's related documents, its table named as its heading. */
export function RecordSection({ title, rows, empty }: { title: string; rows: RecordRow[]; empty: string }) {
  return (
    <DocumentSection title={title}>
      <RecordTable label={title} rows={rows} empty={empty} />
    </DocumentSection>
  );
}

/** A record's related documents (a client's quotes, a job's invoices): each with its status and amount. */
function RecordTable({ label, rows, empty }: { label: string; rows: RecordRow[]; empty: string }) {
  if (rows.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {empty}
      </Text>
    );
  return (
    <Table aria-label={label} verticalSpacing={4}>
      <Table.Tbody>
        {rows.map((r) => (
          <Table.Tr key={r.key}>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>
              <Anchor component={Link} to={r.href}>
                {r.title}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <StatusBadge status={r.status} />
            </Table.Td>
            <Table.Td ta="right">{r.amount ?? ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
