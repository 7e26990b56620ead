import type { EventStore } from './port.ts';

/**
 * Which stores no other process writes to, and which single in-process owner writes their
 * payment streams. The paid-call saga reads its claim back after appending it because appends are
 * idempotent by event id and its ids depend on the payment only: another writer's claim of the
 * same payment would make our append "succeed". When this process holds the store exclusively
 * (the file log's directory lock) and exactly one saga writes payment streams, that saga's
 * per-stream queue already rules out any other writer, and the read-back proves nothing more.
 *
 * EventStoreDB (shared by instances) and stores a test builds by hand are never marked, and a
 * store that a second owner asks for stops counting as sole-writer for everyone, for good.
 */
const exclusive = new WeakSet<EventStore>();
const owners = new WeakMap<EventStore, object>();
const SHARED = Object.freeze({});

/** Marks a store this process alone writes to (it holds the store's exclusive lock). */
export function markExclusiveStore<S extends EventStore>(store: S): S {
  exclusive.add(store);
  return store;
}

/**
 * Whether `owner` is the only in-process writer of `store`'s payment streams, and no other process
 * writes to it. The first owner to ask is; any other owner asking ends it for every owner. Ask
 * before writing (so that a second owner is known before its first append) and again after an
 * append whose outcome it decides (so that an owner that appeared meanwhile is seen).
 */
export function isSoleWriter(store: EventStore, owner: object): boolean {
  if (!exclusive.has(store)) return false;
  const current = owners.get(store);
  if (current === undefined) {
    owners.set(store, owner);
    return true;
  }
  if (current === owner) return true;
  owners.set(store, SHARED);
  return false;
}
