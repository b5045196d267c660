// The "Record payment" dialog's form (A3), shared by an invoice's payments (E3)
// and a quote's deposit (E23, "Record deposit"): the same fields and rules; the
// caller says where the payment goes. The API's errors show next to their field.
import { Button, NumberInput, Stack, TextInput } from '@mantine/core';
import { FormError, type SubmitContext, useApiForm } from './api-form.tsx';
import { ComboSelect } from './combo-select.tsx';
import { statusLabel } from '../lib/format.ts';

export const PAYMENT_METHODS = ['cash', 'check', 'card', 'bank_transfer', 'other'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
const asMethod = (v: string): PaymentMethod => PAYMENT_METHODS.find((m) => m === v) ?? 'other';

export interface PaymentBody {
  amount: number;
  method: PaymentMethod;
  paid_on: string;
  reference: string | null;
}

export function PaymentForm({ amount, today, save, onDone }: { amount: number; today: string; save: (body: PaymentBody, ctx: SubmitContext) => Promise<unknown>; onDone: () => void }) {
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { amount: amount as number | string, method: 'other', paid_on: today, reference: '' },
    submit: (v, ctx) => save({ amount: Number(v.amount), method: asMethod(v.method), paid_on: v.paid_on, reference: v.reference || null }, ctx),
    onSuccess: onDone,
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="sm">
        <FormError error={error} />
        <NumberInput label="Amount" min={0} decimalScale={2} {...form.getInputProps('amount')} />
        <ComboSelect label="Method" allowDeselect={false} data={PAYMENT_METHODS.map((m) => ({ value: m, label: statusLabel(m) }))} {...form.getInputProps('method')} />
        <TextInput label="Date" type="date" {...form.getInputProps('paid_on')} />
        <TextInput label="Reference" {...form.getInputProps('reference')} />
        <Button type="submit" loading={pending}>
          Save payment
        </Button>
      </Stack>
    </form>
  );
}
