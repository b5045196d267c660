// The one editor of priced documents (quotes, jobs, invoices): client and
// property pickers, title, the line-item editor with live D7 totals, message,
// and whatever fields a kind adds (`extra`). Saves through the caller's submit.
import { Button, Group, SimpleGrid, Stack, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { ReactNode } from 'react';
import type { WorkspaceLike } from '../lib/format.ts';
import { FormError, type SubmitContext, useApiForm } from './api-form.tsx';
import { CustomFieldInputs, type CustomFieldValues, customFieldFormValues, customFieldsBody, useCustomFields } from './custom-fields.tsx';
import { type EditableLine, LineItemEditor, type Pricing, pricingBody, pricingErrorPath, pricingErrors, toBody, toEditable } from './documents.tsx';
import { ClientPicker, PropertyPicker } from './pickers.tsx';
import { GrowingTextarea } from './growing-textarea.tsx';

export interface DocumentValues extends Record<string, unknown> {
  contact_id: number | null;
  property_id: number | null;
  name: string;
  line_items: EditableLine[];
  pricing: Pricing;
  message: string;
  extra: Record<string, string>;
  custom_fields: CustomFieldValues;
}

/** What the editor adds to a submission: the `custom_fields` of the body (undefined: leave them). */
export interface DocumentSubmitContext extends SubmitContext {
  customFields: Record<string, unknown> | undefined;
}

/** `X`: the values of a kind's own fields (a job's schedule), beside the common ones. */
export interface DocumentEditorProps<X extends Record<string, unknown> = Record<never, never>> {
  initial: DocumentValues & X;
  saveLabel: string;
  workspace: WorkspaceLike;
  /** The kind, whose custom fields (D23) the editor shows. */
  moduleType: 'quote' | 'job' | 'invoice';
  /** Whether this makes a new document (a custom field left empty is then left out, not cleared). */
  create: boolean;
  submit: (values: DocumentValues & X, ctx: DocumentSubmitContext) => Promise<{ data: { id: number } }>;
  onSaved: (id: number) => void;
  /** Fields of one kind only (an invoice's payment terms), bound to `extra`. */
  extra?: (bind: (name: string) => { value: string; onChange: (value: string) => void }) => ReactNode;
  /** Shown above the fields, with the values as they are now (a quote's "Start from template"). */
  aside?: (values: DocumentValues) => ReactNode;
  /** Whether the message field shows (jobs have none). */
  withMessage?: boolean;
  /** A kind's own fields bound to the editor's form (a job's schedule), shown after the title. */
  fields?: (form: UseFormReturnType<DocumentValues & X>) => ReactNode;
  /** Checks of those fields before asking the server, by form path (null: fine). */
  validate?: (values: DocumentValues & X) => Record<string, string | null>;
  /** The form path where those fields show what the API says about `apiField` (undefined: not theirs). */
  errorPath?: (apiField: string) => string | undefined;
}

export function DocumentEditor<X extends Record<string, unknown> = Record<never, never>>(props: DocumentEditorProps<X>) {
  const { initial, saveLabel, workspace, moduleType, create, submit, onSaved, extra, aside, withMessage = true } = props;
  const fields = useCustomFields(moduleType);
  const { form, onSubmit, pending, error } = useApiForm<DocumentValues & X, { data: { id: number } }>({
    initialValues: initial,
    validate: (values) => ({
      contact_id: values.contact_id ? null : 'Choose a client',
      line_items: values.line_items.some((i) => !i.name.trim()) ? 'Every line item needs a name' : null,
      ...props.validate?.(values),
    }),
    submit: (v, ctx) => submit(v, { ...ctx, customFields: customFieldsBody(fields, v.custom_fields, create) }),
    onSuccess: (res) => onSaved(res.data.id),
    errorPath: (field) => props.errorPath?.(field) ?? pricingErrorPath(field),
  });
  // The common fields are set through this (the kind's fields set theirs through `form`).
  const common = {
    setFieldValue: <K extends keyof DocumentValues & string>(key: K, value: DocumentValues[K]) => {
      form.setValues((prev) => ({ ...prev, [key]: value }));
      form.clearFieldError(key);
    },
  };
  const v = form.getValues();
  const lineError = Object.entries(form.errors).find(([k]) => k.startsWith('line_items'))?.[1];
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md" maw={960}>
        <FormError error={error} />
        {aside?.(v)}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <ClientPicker
            required
            value={v.contact_id}
            error={typeof form.errors.contact_id === 'string' ? form.errors.contact_id : undefined}
            onChange={(id) => {
              common.setFieldValue('contact_id', id);
              common.setFieldValue('property_id', null);
            }}
          />
          <PropertyPicker clientId={v.contact_id} value={v.property_id} onChange={(id) => common.setFieldValue('property_id', id)} />
        </SimpleGrid>
        <TextInput label="Title" {...form.getInputProps('name')} />
        {extra?.((name) => ({ value: v.extra[name] ?? '', onChange: (value) => common.setFieldValue('extra', { ...form.getValues().extra, [name]: value }) }))}
        {props.fields?.(form)}
        <LineItemEditor
          items={v.line_items}
          onChange={(items) => common.setFieldValue('line_items', items)}
          pricing={v.pricing}
          onPricingChange={(pricing) => common.setFieldValue('pricing', pricing)}
          pricingErrors={pricingErrors(form.errors)}
          workspace={workspace}
        />
        {lineError && (
          <FormError error={String(lineError)} />
        )}
        <CustomFieldInputs
          defs={fields}
          values={v.custom_fields}
          errors={form.errors}
          onChange={(key, value) => common.setFieldValue('custom_fields', { ...form.getValues().custom_fields, [key]: value })}
        />
        {withMessage && <GrowingTextarea label="Message" minRows={2} {...form.getInputProps('message')} />}
        <Group>
          <Button type="submit" loading={pending}>
            {saveLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** A stored quote, job or invoice; a job read by a member has no prices (A14), hence the optional fields. */
interface PricedRecord {
  contact_id: number | null;
  property_id: number | null;
  name: string | null;
  line_items?: { id: string; name: string; description: string | null; quantity: number; unitPrice: number; taxable: boolean; optional: boolean }[];
  discount?: number;
  discount_unit?: '%' | '$';
  tax_rate?: number;
  tax_rate_id?: number | null;
  deposit?: number;
  custom_fields?: unknown;
}

/** The editor's values of a stored document (or a new one for `contactId`). */
export function documentValues(record: (PricedRecord & { message?: string | null }) | null, contactId: number | null = null, extra: Record<string, string> = {}): DocumentValues {
  return {
    contact_id: record?.contact_id ?? contactId,
    property_id: record?.property_id ?? null,
    name: record?.name ?? '',
    line_items: toEditable(record?.line_items ?? []),
    pricing: {
      discount: record?.discount ?? 0,
      discount_unit: record?.discount_unit ?? '%',
      tax_rate: record?.tax_rate ?? 0,
      tax_rate_id: record?.tax_rate_id ?? null,
      deposit: record?.deposit ?? 0,
    },
    message: record?.message ?? '',
    extra,
    custom_fields: customFieldFormValues(record?.custom_fields),
  };
}

/** The create/update body's common fields (with the editor's `custom_fields`, when the kind has any). */
export function documentBody(v: DocumentValues, ctx: Pick<DocumentSubmitContext, 'customFields'>) {
  return {
    ...(ctx.customFields ? { custom_fields: ctx.customFields } : {}),
    contact_id: v.contact_id,
    property_id: v.property_id,
    name: v.name.trim() || null,
    line_items: toBody(v.line_items),
    ...pricingBody(v.pricing),
  };
}
