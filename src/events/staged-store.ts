import { checkAppendSize, checkExpectedRevision } from './append-rules.ts';
import { withOwnAppend } from './borrowed-store.ts';
import type { AppendResult, EventData, EventStore, ExpectedRevision, RecordedEvent } from './port.ts';
import { streamWindow } from './stream-window.ts';

/** `store` with its appends held back: what a command staged, and how many events. */
export interface StagedStore extends EventStore {
  readonly stagedEvents: number;
}

/**
 * Positions of staged events: past any real one, so that nothing staged is mistaken for an event
 * of the log. A record that names one is never signed (see withStagedAppends).
 */
const STAGED_POSITION_BASE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * `store` lent to a command that is run only to learn what it would sign: its appends are held
 * in memory (each checked against the store's append limit, and its expected revision against
 * the store's stream and what was staged on it), its reads of a stream it appended to see them
 * after the store's events, and the store is left as it was. Reads of the whole log and
 * subscriptions see the store alone. A command that staged anything keeps state: its result is
 * for measuring only, and it runs again, for real, to be signed.
 */
export function withStagedAppends(store: EventStore): StagedStore {
  const staged = new Map<string, RecordedEvent[]>();
  let count = 0;

  async function lengthOf(stream: string): Promise<number> {
    const mine = staged.get(stream);
    if (mine) return Number(mine.at(-1)!.revision) + 1;
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return last ? Number(last.revision) + 1 : 0;
  }

  async function appendToStream(stream: string, events: EventData[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    checkAppendSize(stream, events, store.appendLimitBytes);
    const length = await lengthOf(stream);
    checkExpectedRevision(stream, length, options.expectedRevision ?? 'any');
    const mine = staged.get(stream) ?? [];
    const recordedAt = Date.now();
    for (const [i, event] of events.entries()) {
      mine.push({ id: event.id, type: event.type, data: event.data, metadata: event.metadata ?? {}, stream, revision: BigInt(length + i), position: STAGED_POSITION_BASE + BigInt(count + i), recordedAt });
    }
    staged.set(stream, mine);
    count += events.length;
    return { nextExpectedRevision: BigInt(length + events.length - 1), position: STAGED_POSITION_BASE + BigInt(count - 1) };
  }

  // The literal begins with a member, not the spread: members added to an object a leading spread
  // made take V8's slow path on Node 20 (payments/saga/context.ts), and each engine-thread call makes one.
  return {
    get stagedEvents() {
      return count;
    },
    // Reads of the whole log, subscriptions, the limit and close: the store's, as lent.
    ...withOwnAppend(store, appendToStream),
    async readStream(stream, options = {}) {
      const mine = staged.get(stream);
      if (!mine) return store.readStream(stream, options);
      return streamWindow([...(await store.readStream(stream)), ...mine], options);
    },
  };
}
