import type { EventStore } from './port.ts';

/**
 * `store` lent to a command with an append of the lender's own (one that claims a payment
 * first): reads pass through, the append limit is the store's, and closing it is not the
 * borrower's business.
 */
export function withOwnAppend(store: EventStore, appendToStream: EventStore['appendToStream']): EventStore {
  const readStream: EventStore['readStream'] = (stream, options) => store.readStream(stream, options);
  readsOf.set(readStream, readingStore(store));
  return {
    appendToStream,
    readStream,
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    close: async () => {},
    ...(store.appendLimitBytes === undefined ? {} : { appendLimitBytes: store.appendLimitBytes }),
  };
}

/** Lent stores' pass-through stream reads, and the store each reads. */
const readsOf = new WeakMap<EventStore['readStream'], EventStore>();

/**
 * The store whose streams `store` reads: the lender's, for a store lent by withOwnAppend (or a
 * copy of one) whose stream reads pass through unchanged; `store` itself for any other, such as
 * one that shows staged events. What is learnt from reading a stream (a folded state) may be
 * kept under this store and used by every store that reads the same streams.
 */
export function readingStore(store: EventStore): EventStore {
  return readsOf.get(store.readStream) ?? store;
}
