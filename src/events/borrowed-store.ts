import type { EventStore } from './port.ts';

/**
 * `store` lent to a command with an append of the lender's own (one that claims a payment
 * first): reads pass through, the append limit is the store's, and closing it is not the
 * borrower's business.
 */
export function withOwnAppend(store: EventStore, appendToStream: EventStore['appendToStream']): EventStore {
  return {
    appendToStream,
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    close: async () => {},
    ...(store.appendLimitBytes === undefined ? {} : { appendLimitBytes: store.appendLimitBytes }),
  };
}
