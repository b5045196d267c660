// The crew's writes that must survive a lost connection (A12): each is stored
// first (offline-store.ts), then sent in the order it was made, now if the
// network allows, else when it returns ('online'), on the next load, or at the
// next retry. Each keeps the Idempotency-Key it was given when made (E11), so a
// write whose answer was lost on the way is answered, not done again, when sent
// once more. A refusal (4xx) stays on its visit with the API's message; a 401
// (a write's or a read's) stops the queue until the person signs in again (F321, F323).
import { useSyncExternalStore } from 'react';
import { ApiFailure, api, unwrap } from './api.ts';
import { addWrite, answerOf, dropWrite, type QueuedWrite, writeDone, writeRefused, writesOf } from './offline-store.ts';

export type { QueuedWrite };

export interface QueueState {
  online: boolean;
  /** The owner's writes not yet accepted, oldest first; refused ones carry `refused`. */
  writes: QueuedWrite[];
  /** Keys of writes made online and on their first way to the server: their effect shows once answered, as any online write's. */
  sending: string[];
  /** Writes accepted whose effect the page has not read back yet (until `whenAccepted` ran). */
  settled: QueuedWrite[];
  /** A write was answered 401: the session ended; sending resumes after signing in. */
  signInNeeded: boolean;
}

let owner: string | null = null;
let onSignInNeeded = () => {};
let onAccepted: (() => Promise<unknown>) | null = null;
/** What re-reads the page's data after a replay accepted writes (My day); until it is done they count as `settled`. */
export function whenAccepted(fn: () => Promise<unknown>): () => void {
  onAccepted = fn;
  return () => {
    if (onAccepted === fn) onAccepted = null;
  };
}
/** What to do when a write is answered 401 (the app sends the person to sign in). */
export const whenSignInNeeded = (fn: () => void) => {
  onSignInNeeded = fn;
};
let state: QueueState = { online: typeof navigator === 'undefined' ? true : navigator.onLine, writes: [], sending: [], settled: [], signInNeeded: false };
const listeners = new Set<() => void>();
const emit = (next: Partial<QueueState>) => {
  state = { ...state, ...next };
  for (const l of listeners) l();
};

/** A fetch that never reached the server (offline, DNS, a dropped connection): TypeError from fetch. */
export const isNetworkError = (err: unknown) => err instanceof TypeError;

/** Waits to be told the write settled: true when accepted, false when still waiting or refused. */
type Settled = (accepted: boolean) => void;
const waiting = new Map<string, Settled>();

/** A read found the session ended: nothing is sent until the person signs in again (startQueue). */
export const pauseUntilSignedIn = () => emit({ signInNeeded: true });

/** The person whose writes are sent (null: nobody signed in). Sends what they left waiting. */
export async function startQueue(who: string | null): Promise<void> {
  owner = who;
  emit({ signInNeeded: false, writes: who ? await writesOf(who) : [] });
  if (who) void replay();
}

/**
 * Stores `write` and sends it (with those before it) if the network allows.
 * Resolves true once accepted, false when it waits for the network or was refused.
 */
export async function submitWrite(write: Omit<QueuedWrite, 'owner' | 'made_at'>): Promise<boolean> {
  if (!owner) throw new Error('Sign in to save this');
  if (state.online) emit({ sending: [...state.sending, write.key] });
  await addWrite({ ...write, owner, made_at: new Date().toISOString() });
  await refresh();
  const settled = new Promise<boolean>((resolve) => waiting.set(write.key, resolve));
  void replay().then(() => settle(write.key, false)); // still there after a replay: it waits
  return settled;
}

/** Forgets a refused write once its message was read. */
export async function dismissWrite(seq: number): Promise<void> {
  await dropWrite(seq);
  await refresh();
}

async function refresh() {
  emit({ writes: owner ? await writesOf(owner) : [] });
}

let running: Promise<void> | null = null;
let again = false;

/** Sends every waiting write in order; one replay at a time (a second call runs it once more after). */
export function replay(): Promise<void> {
  again = true;
  running ??= (async () => {
    const accepted: QueuedWrite[] = [];
    try {
      while (again) {
        again = false;
        await drain(accepted);
      }
      // One read of the page's data for all the writes of this replay, then they are done.
      if (accepted.length) await onAccepted?.().catch(() => undefined);
    } finally {
      running = null;
      emit({ settled: state.settled.filter((w) => !accepted.includes(w)) });
      for (const w of accepted) settle(w.key, true);
    }
  })();
  // Asked again while this one was reading the page back: once more.
  return running.then(() => (again ? replay() : undefined));
}

async function drain(accepted: QueuedWrite[]): Promise<void> {
  const who = owner;
  if (!who || state.signInNeeded) return;
  for (const write of await writesOf(who)) {
    if (write.refused || owner !== who) continue;
    try {
      await writeDone(write, await send(write));
      accepted.push(write);
      // In memory: re-reading the queue after each of many writes made a replay quadratic.
      emit({ settled: [...state.settled, write], writes: state.writes.filter((w) => w.key !== write.key) });
      continue;
    } catch (err) {
      if (isNetworkError(err)) {
        // The rest waits for the network; a browser that says it is online (the connection
        // not quite back when 'online' fired) is tried again shortly rather than at the next round.
        if (navigator.onLine) setTimeout(() => void replay(), 2_000);
        return emit({ online: navigator.onLine });
      }
      if (err instanceof ApiFailure && err.status === 401) {
        emit({ signInNeeded: true });
        return onSignInNeeded();
      }
      // A 5xx, too many requests, this key still in progress (an earlier send of it not yet
      // answered), or a CSRF token of another session (sent while the person was signing in
      // again, before the new session's token was set): later, never refused.
      if (err instanceof ApiFailure && (err.status >= 500 || err.status === 429 || (err.status === 409 && /in progress/i.test(err.message)) || isCsrfRefusal(err))) return;
      await writeRefused(write, err instanceof ApiFailure ? err.explained() : String(err));
      settle(write.key, false);
    }
    await refresh();
  }
  if (!state.online && navigator.onLine) emit({ online: true });
}

const isCsrfRefusal = (err: ApiFailure) => err.status === 403 && /csrf/i.test(err.body?.error ?? '');

function settle(key: string, accepted: boolean) {
  waiting.get(key)?.(accepted);
  waiting.delete(key);
  if (state.sending.includes(key)) emit({ sending: state.sending.filter((k) => k !== key) });
}

type LooseCall = (path: string, init: { body?: unknown; bodySerializer?: () => FormData; headers: Record<string, string> }) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** One write sent as it was made; answers the id of what it made or changed (a time entry's, for its clock out). */
async function send(write: QueuedWrite): Promise<number | null> {
  let path = write.path;
  if (write.after) {
    const id = await answerOf(write.after);
    if (id === null) throw new Error('Not sent: the clock in it ends was not accepted');
    path = path.replace('{entry}', String(id));
  }
  const headers = { 'idempotency-key': write.key };
  const call = (write.method === 'POST' ? api.POST : api.PUT) as unknown as LooseCall;
  const { upload } = write;
  const init = upload
    ? {
        body: {},
        headers,
        bodySerializer: () => {
          const form = new FormData();
          for (const [k, v] of Object.entries(upload.fields)) form.set(k, v);
          form.set('file', upload.file, upload.name);
          return form;
        },
      }
    : { body: write.body, headers };
  const answer = (await unwrap(call(path, init))) as { data?: { id?: unknown } } | undefined;
  return typeof answer?.data?.id === 'number' ? answer.data.id : null;
}

/** The queue's state for a component: re-renders when it changes. */
export function useWriteQueue(): QueueState {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
}

if (typeof window !== 'undefined') {
  window.addEventListener('online', () => {
    emit({ online: true });
    void replay();
  });
  window.addEventListener('offline', () => emit({ online: false }));
  // A 5xx or a network that came back without an 'online' event: try again now and then.
  setInterval(() => {
    if (state.writes.some((w) => !w.refused)) void replay();
  }, 20_000);
}
