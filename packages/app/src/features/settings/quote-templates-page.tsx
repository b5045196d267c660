// "Quote templates" (A5): the line items, pricing and message new quotes start
// from (POST /quote-templates/:id/create-quote). Listed in the shared settings
// table (A126); the form edits line items with the quote editor's own
// LineItemEditor and live D7 totals (A127).
import { Stack, TextInput } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useQueryClient } from '@tanstack/react-query';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { type EditableLine, LineItemEditor, type Pricing, pricingBody, pricingErrorPath, pricingErrors, toBody, toEditable } from '../../components/documents.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { money } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';
import { FormButtons, type RowFormProps, SettingsTable } from './shared/settings-table.tsx';
import { GrowingTextarea } from '../../components/growing-textarea.tsx';

type Template = components['schemas']['QuoteTemplate'];
const TEMPLATES = ['quote-templates'] as const;

export default function QuoteTemplatesPage() {
  const me = useMe();
  return (
    <SettingsTable<Template>
      title="Quote templates"
      newLabel="New template"
      editLabel="Edit template"
      empty="No quote templates yet."
      queryKey={TEMPLATES}
      list={async () => (await unwrap(api.GET('/api/v1/quote-templates', { params: { query: { per_page: 100, sort_by: 'template_name' } } }))).data}
      remove={(id, idempotencyKey) => unwrap(api.DELETE('/api/v1/quote-templates/{id}', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } }))}
      columns={[
        { header: 'Name', cell: (t) => t.template_name },
        { header: 'Total', cell: (t) => money(t.total, me.workspace) },
      ]}
      Form={TemplateForm}
      wide
    />
  );
}

interface TemplateValues extends Record<string, unknown> {
  template_name: string;
  line_items: EditableLine[];
  pricing: Pricing;
  message: string;
}

function TemplateForm({ row, onDone }: RowFormProps<Template>) {
  const client = useQueryClient();
  const ws = useMe().workspace;
  const initialValues: TemplateValues = {
    template_name: row?.template_name ?? '',
    line_items: toEditable(row?.line_items ?? []),
    pricing: {
      discount: row?.discount ?? 0,
      discount_unit: row?.discount_unit ?? '%',
      tax_rate: row?.tax_rate ?? 0,
      tax_rate_id: row?.tax_rate_id ?? null,
      deposit: row?.deposit ?? 0,
    },
    message: row?.message ?? '',
  };
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues,
    // The template's name is the API's to check (its error shows by the field).
    validate: { line_items: (items) => (items.some((i) => !i.name.trim()) ? 'Every line item needs a name' : null) },
    submit: (v, { idempotencyKey }) => {
      const body = {
        template_name: v.template_name,
        line_items: toBody(v.line_items),
        ...pricingBody(v.pricing),
        message: v.message.trim() || null,
      };
      const headers = { 'idempotency-key': idempotencyKey };
      return row
        ? unwrap(api.PUT('/api/v1/quote-templates/{id}', { params: { path: { id: row.id } }, body, headers }))
        : unwrap(api.POST('/api/v1/quote-templates', { body, headers }));
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: TEMPLATES });
      onDone();
    },
    errorPath: pricingErrorPath,
  });
  const v = form.getValues();
  const lineError = Object.entries(form.errors).find(([k]) => k.startsWith('line_items'))?.[1];
  return (
    <form onSubmit={onSubmit} noValidate aria-label={row ? 'Edit template' : 'New template'}>
      <Stack gap="md">
        <FormError error={error} />
        <TextInput label="Template name" {...form.getInputProps('template_name')} />
        <LineItemEditor
          items={v.line_items}
          onChange={(items) => form.setFieldValue('line_items', items)}
          pricing={v.pricing}
          onPricingChange={(pricing) => form.setFieldValue('pricing', pricing)}
          pricingErrors={pricingErrors(form.errors)}
          workspace={ws}
        />
        {lineError && <FormError error={String(lineError)} />}
        <GrowingTextarea label="Message" minRows={2} {...form.getInputProps('message')} />
        <FormButtons save="Save template" pending={pending} onCancel={onDone} />
      </Stack>
    </form>
  );
}
