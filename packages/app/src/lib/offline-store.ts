// What the crew's phone keeps for working offline (A12), in IndexedDB through `idb`:
// who the device belongs to and their GET /me, today's My day, the writes waiting
// to be sent and the answers later writes depend on (a clock out needs its clock
// in's time entry id). Everything belongs to one person in one workspace (the
// owner): another owner signing in, or signing out, empties every store (F322).
import type { components } from '@fieldwork/client';
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';

type Me = components['schemas']['Me'];

/** A write as it will be sent: its method, path, body and Idempotency-Key are fixed when it is made (F321). */
export interface QueuedWrite {
  /** Order of making, the order of sending. */
  seq?: number;
  owner: string;
  visitId: number;
  /** The visit's job, when the write is a clock in or out (which job's clock it changes). */
  jobId: number | null;
  kind: 'start' | 'complete' | 'note' | 'photo' | 'clock-in' | 'clock-out';
  method: 'POST' | 'PUT';
  /** The path; `{entry}` is the id answered to the write whose key is `after`. */
  path: string;
  after?: string;
  body?: unknown;
  /** multipart: the form's text fields and the file itself, kept as a Blob. */
  upload?: { fields: Record<string, string>; file: Blob; name: string };
  key: string;
  /** The API's message when it refused the write on replay; shown on the visit until dismissed. */
  refused?: string;
  made_at: string;
}

interface OfflineDB extends DBSchema {
  device: { key: 'owner'; value: { owner: string; me: Me } };
  days: { key: string; value: { owner: string; date: string; saved_at: string; data: unknown } };
  queue: { key: number; value: QueuedWrite };
  answers: { key: string; value: { key: string; id: number } };
}

const STORES = ['device', 'days', 'queue', 'answers'] as const;
let opened: Promise<IDBPDatabase<OfflineDB>> | null = null;

function db(): Promise<IDBPDatabase<OfflineDB>> {
  opened ??= openDB<OfflineDB>('fieldwork-offline', 1, {
    upgrade(d) {
      d.createObjectStore('device');
      d.createObjectStore('days');
      d.createObjectStore('queue', { keyPath: 'seq', autoIncrement: true });
      d.createObjectStore('answers', { keyPath: 'key' });
    },
  });
  return opened;
}

/** Starts opening the device's store ahead of its first use (an open in a fresh profile creates it). */
export const openOfflineStore = (): void => void db();

/** Whose the device's data is: one person (membership) in one workspace. */
export const ownerOf = (me: Me) => `${me.workspace.id}:${me.user.id}`;

/** The last signed-in person's GET /me, shown while offline. */
export async function rememberedMe(): Promise<Me | null> {
  return (await (await db()).get('device', 'owner'))?.me ?? null;
}

/**
 * Makes `me` the device's owner. Another person or workspace than the last: every
 * store is emptied first, so nothing of theirs shows (or is sent) as this one's.
 * Answers whether the owner changed.
 */
export async function claimDevice(me: Me): Promise<boolean> {
  const d = await db();
  const owner = ownerOf(me);
  const before = await d.get('device', 'owner');
  const changed = before !== undefined && before.owner !== owner;
  if (changed) await forgetDevice();
  await d.put('device', { owner, me }, 'owner');
  return changed;
}

/** Signing out: nothing of the person stays on the device. */
export async function forgetDevice(): Promise<void> {
  const d = await db();
  const tx = d.transaction(STORES, 'readwrite');
  await Promise.all([...STORES.map((s) => tx.objectStore(s).clear()), tx.done]);
}

export async function saveDay(owner: string, date: string, data: unknown): Promise<void> {
  await (await db()).put('days', { owner, date, saved_at: new Date().toISOString(), data }, 'my-day');
}

/** Today's My day as last read online, or null (another day, another owner, never read). */
export async function readDay<T>(owner: string, date: string): Promise<{ saved_at: string; data: T } | null> {
  const day = await (await db()).get('days', 'my-day');
  return day && day.owner === owner && day.date === date ? { saved_at: day.saved_at, data: day.data as T } : null;
}

export async function addWrite(write: QueuedWrite): Promise<void> {
  await (await db()).add('queue', write);
}

/** The owner's writes in the order they were made, refused ones included. */
export async function writesOf(owner: string): Promise<QueuedWrite[]> {
  return (await (await db()).getAll('queue')).filter((w) => w.owner === owner);
}

/** A write answered 2xx: gone from the queue, its answer's id kept for the writes after it. */
export async function writeDone(write: QueuedWrite, answeredId: number | null): Promise<void> {
  const d = await db();
  const tx = d.transaction(['queue', 'answers'], 'readwrite');
  await Promise.all([
    tx.objectStore('queue').delete(write.seq ?? -1),
    answeredId !== null ? tx.objectStore('answers').put({ key: write.key, id: answeredId }) : null,
    tx.done,
  ]);
}

export async function writeRefused(write: QueuedWrite, message: string): Promise<void> {
  await (await db()).put('queue', { ...write, refused: message });
}

export async function dropWrite(seq: number): Promise<void> {
  await (await db()).delete('queue', seq);
}

/** The id the write with Idempotency-Key `key` was answered with, once sent. */
export async function answerOf(key: string): Promise<number | null> {
  return (await (await db()).get('answers', key))?.id ?? null;
}
