// Forms per A2: the API's validation errors next to their fields (Mantine sets
// aria-invalid and aria-describedby from `error`), what was typed kept, and one
// Idempotency-Key per submission so a double click or a retry writes once (E11).
import { Alert } from '@mantine/core';
import { type FormValidateInput, type UseFormReturnType, useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useRef } from 'react';
import { ApiFailure } from '../lib/api.ts';
import { useUnsavedChanges } from './unsaved-changes.tsx';
import { withLabel } from '../lib/field-messages.ts';

export interface SubmitContext {
  /** Send as the `Idempotency-Key` header of the write. */
  idempotencyKey: string;
}

export interface ApiFormOptions<V extends Record<string, unknown>, R> {
  initialValues: V;
  /** Checks made before asking the server (optional; the server checks again). */
  validate?: FormValidateInput<V>;
  submit: (values: V, ctx: SubmitContext) => Promise<R>;
  onSuccess?: (result: R, values: V) => void;
  /** The form path of a field the API names, when the form nests it (`discount` → `pricing.discount`). */
  errorPath?: (apiField: string) => string;
}

export interface ApiForm<V extends Record<string, unknown>> {
  form: UseFormReturnType<V>;
  onSubmit: (event?: FormEvent<HTMLFormElement>) => void;
  pending: boolean;
  /** A message for the whole form (no field named, or a refusal such as 401/403/409). */
  error: string | null;
}

export function useApiForm<V extends Record<string, unknown>, R>(options: ApiFormOptions<V, R>): ApiForm<V> {
  const form = useForm<V>({ mode: 'controlled', initialValues: options.initialValues, validate: options.validate });
  // The key lives as long as the values do: the same values sent again (a double
  // click, a retry after a network error) reuse it; changed values get a new one.
  const attempt = useRef<{ key: string; values: string } | null>(null);
  // Decided in the submit itself: `mutation.isPending` shows only after a re-render (A160).
  const inFlight = useRef(false);
  // The values last saved: a form that stays open after saving (settings) or
  // navigates right away has nothing unsaved, though its initial values differ.
  const saved = useRef<string | null>(null);
  useUnsavedChanges(() => form.isDirty() && JSON.stringify(form.getValues()) !== saved.current);
  const mutation = useMutation({
    mutationFn: (values: V) => {
      const json = JSON.stringify(values);
      if (attempt.current?.values !== json) attempt.current = { key: crypto.randomUUID(), values: json };
      return options.submit(values, { idempotencyKey: attempt.current.key });
    },
    onSettled: () => {
      inFlight.current = false;
    },
    onSuccess: (result, values) => {
      attempt.current = null;
      saved.current = JSON.stringify(values);
      options.onSuccess?.(result, values);
    },
    onError: (err) => {
      if (!(err instanceof ApiFailure)) return;
      form.setErrors(placed(err).placed);
    },
  });

  // The API's field errors at their form paths; those the form has no field for are `unplaced`.
  const placed = (err: ApiFailure) => {
    const out = { placed: {} as Record<string, string>, unplaced: [] as string[] };
    for (const [field, message] of Object.entries(err.fieldErrors())) {
      const path = options.errorPath?.(field) ?? field;
      if (path.split('.')[0] in form.getValues()) out.placed[path] = message;
      else out.unplaced.push(withLabel(field, message));
    }
    return out;
  };

  const onSubmit = (event?: FormEvent<HTMLFormElement>) => {
    event?.preventDefault();
    if (inFlight.current) return; // one write in flight per form
    const checked = form.validate();
    if (checked.hasErrors) return;
    inFlight.current = true;
    mutation.mutate(form.getValues());
  };

  let error: string | null = null;
  if (mutation.error) {
    const e = mutation.error;
    if (!(e instanceof ApiFailure)) error = 'Could not reach the server. Try again.';
    else {
      // Errors by their fields are enough; one no field shows is spelled out here.
      const { placed: shown, unplaced } = placed(e);
      if (unplaced.length > 0) error = unplaced.join(". ");
      else error = Object.keys(shown).length > 0 ? 'Check the highlighted fields.' : e.message;
    }
  }
  return { form, onSubmit, pending: mutation.isPending, error };
}

/** The form-level message, announced to screen readers. */
export function FormError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" variant="light">
      {error}
    </Alert>
  );
}
