// A160: the one way a button that writes reaches the server. A click is one
// submission: it gets one Idempotency-Key (E11) and, until its answer, every
// further click is ignored, decided synchronously in the click (React shows the
// button as loading only after a re-render, and a double click's second click
// can come before it). So "Create invoice" makes one invoice and "Send to
// client" sends one email however fast the clicks.
import { useMutation } from '@tanstack/react-query';
import { useRef } from 'react';
import type { SubmitContext } from './api-form.tsx';

export interface ApiActionOptions<A, R> {
  /** The write; send `idempotencyKey` as its `Idempotency-Key` header. */
  run: (arg: A, ctx: SubmitContext) => Promise<R>;
  onSuccess?: (result: R, arg: A) => unknown;
  onError?: (error: Error, arg: A) => unknown;
  /** After either, e.g. refetching what the write changed. */
  onSettled?: () => unknown;
  /** Runs with no network too (its `run` keeps the write for later, A12); otherwise it waits for the network. */
  offline?: boolean;
}

export interface ApiAction<A, R> {
  /** Starts the write unless one of this action is in flight. */
  run: (arg: A) => void;
  /** As `run`, resolving with the answer (undefined when ignored). */
  runAsync: (arg: A) => Promise<R | undefined>;
  pending: boolean;
  /** The argument of the write in flight (to show which row's button is loading). */
  variables: A | undefined;
  error: Error | null;
  /** The last answer, until `reset` or the next run. */
  data: R | undefined;
  reset: () => void;
}

export function useApiAction<A = void, R = unknown>(options: ApiActionOptions<A, R>): ApiAction<A, R> {
  const inFlight = useRef(false);
  const mutation = useMutation({
    networkMode: options.offline ? 'always' : 'online',
    mutationFn: ({ arg, key }: { arg: A; key: string }) => options.run(arg, { idempotencyKey: key }),
    onSuccess: (result: R, { arg }: { arg: A; key: string }) => options.onSuccess?.(result, arg),
    onError: (error: Error, { arg }: { arg: A; key: string }) => options.onError?.(error, arg),
    onSettled: () => {
      inFlight.current = false;
      return options.onSettled?.();
    },
  });
  const runAsync = async (arg: A): Promise<R | undefined> => {
    if (inFlight.current) return undefined;
    inFlight.current = true;
    try {
      return await mutation.mutateAsync({ arg, key: crypto.randomUUID() });
    } catch {
      return undefined; // shown through `error`
    }
  };
  return {
    run: (arg: A) => void runAsync(arg),
    runAsync,
    pending: mutation.isPending,
    variables: mutation.isPending ? mutation.variables?.arg : undefined,
    error: mutation.error,
    data: mutation.data,
    reset: mutation.reset,
  };
}
