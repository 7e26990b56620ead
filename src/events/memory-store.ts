import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';
import { checkAppendSize, matchIdempotentAppend, checkExpectedRevision } from './append-rules.ts';
import { createSubscriptionHub, published } from './subscription-hub.ts';
import { streamWindow } from './stream-window.ts';

/**
 * In-memory adapter with the same semantics as the durable ones: for unit tests.
 * `appendLimitBytes` stands in for EventStoreDB's limit on one append.
 */
export function createMemoryEventStore(options: { appendLimitBytes?: number } = {}): EventStore {
  const log: RecordedEvent[] = [];
  const streams = new Map<string, RecordedEvent[]>();
  const hub = createSubscriptionHub((from) => log.filter((e) => from === undefined || e.position > from));

  async function appendToStream(stream: string, events: EventData[], appendOptions: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    checkAppendSize(stream, events, options.appendLimitBytes);
    const expected = appendOptions.expectedRevision ?? 'any';
    const existing = streams.get(stream) ?? [];
    const replay = matchIdempotentAppend(stream, existing, events, expected);
    if (replay) return replay;
    checkExpectedRevision(stream, existing.length, expected);
    const written: RecordedEvent[] = events.map((e, i) => ({
      id: e.id,
      type: e.type,
      data: structuredClone(e.data),
      metadata: structuredClone(e.metadata ?? {}),
      stream,
      revision: BigInt(existing.length + i),
      position: BigInt(log.length + i),
      recordedAt: Date.now(),
    }));
    if (written.length === 0) {
      if (existing.length === 0) return { nextExpectedRevision: -1n, position: BigInt(log.length) - 1n };
      return { nextExpectedRevision: BigInt(existing.length - 1), position: existing.at(-1)!.position };
    }
    streams.set(stream, [...existing, ...written]);
    log.push(...written);
    hub.publish(written.map(published));
    return { nextExpectedRevision: written.at(-1)!.revision, position: written.at(-1)!.position };
  }

  async function readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return streamWindow(streams.get(stream) ?? [], options);
  }

  async function* readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    let count = 0;
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    for (const e of log) {
      if (options.fromPosition !== undefined && e.position <= options.fromPosition) continue;
      if (count++ >= max) return;
      yield e;
    }
  }

  return {
    appendToStream,
    readStream,
    readAll,
    subscribeToAll: (options: SubscribeOptions): Subscription => hub.subscribe(options),
    headPosition: async () => log.at(-1)?.position,
    close: async () => hub.closeAll(),
    ...(options.appendLimitBytes === undefined ? {} : { appendLimitBytes: options.appendLimitBytes }),
  };
}

export { WrongExpectedRevisionError };
