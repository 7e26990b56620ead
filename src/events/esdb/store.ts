import { BACKWARDS, EventStoreDBClient, MaxAppendSizeExceededError, StreamNotFoundError, excludeSystemEvents, START } from '@eventstore/db-client';
import type { HeadAwareEventStore } from '../file-log/store.ts';
import type { EventLogger } from '../file-log/logger.ts';
import { stderrLogger } from '../file-log/logger.ts';
import { appendBytes, checkAppendSize } from '../append-rules.ts';
import { dataSize, markWholeWindow } from '../stream-window.ts';
import {
  AppendTooLargeError,
  EventStoreUnavailableError,
  type AppendResult,
  type EventData,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../port.ts';
import {
  END,
  READ_DIRECTION,
  fromResolvedEvent,
  isSystemEvent,
  isUnavailable,
  mapClientError,
  positionOf,
  toClientEvent,
  toClientExpectedRevision,
  toClientPosition,
} from './mapping.ts';

export interface EsdbEventStoreOptions {
  /** esdb://host:2113?tls=true or esdb+discover://cluster-dns:2113 (kurrentdb:// is accepted as esdb://). */
  connectionString: string;
  log?: EventLogger;
  /** Delay before a dropped subscription resubscribes. Default 1,000 ms. */
  resubscribeDelayMs?: number;
  /**
   * The server's MaxAppendSize: the most bytes one append may carry. Default 1,048,576, the
   * server's own default; set both together.
   */
  maxAppendBytes?: number;
}

/** EventStoreDB's own default MaxAppendSize. */
const ESDB_DEFAULT_MAX_APPEND_BYTES = 1_048_576;
/**
 * Kept free of the server's limit: the server counts each event's type, content type and id as
 * well as its data and metadata (appendBytes counts the last two).
 */
const APPEND_HEADROOM_BYTES = 16 * 1024;

/**
 * The EventStoreDB (KurrentDB) adapter. Expected revisions and event ids go to the server as they
 * are, so the server's optimistic concurrency and idempotency are the ones that apply. Positions
 * are $all commit positions. System events ($-prefixed types or streams) are never returned by
 * readAll or delivered to subscribers. Subscriptions are catch-up subscriptions resumed from our
 * own checkpoints (persistent subscriptions do not keep order).
 */
export function createEsdbEventStore(options: EsdbEventStoreOptions): HeadAwareEventStore {
  const log = options.log ?? stderrLogger;
  const client = EventStoreDBClient.connectionString(normaliseConnectionString(options.connectionString));
  const resubscribeDelayMs = options.resubscribeDelayMs ?? 1000;
  const open = new Set<{ close(): Promise<void> }>();
  const appendLimitBytes = (options.maxAppendBytes ?? ESDB_DEFAULT_MAX_APPEND_BYTES) - APPEND_HEADROOM_BYTES;

  async function appendToStream(stream: string, events: EventData[], appendOptions: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    const expected = appendOptions.expectedRevision ?? 'any';
    // Refused here rather than by the server: the same error, without a doomed round trip.
    checkAppendSize(stream, events, appendLimitBytes);
    try {
      const result = await client.appendToStream(stream, events.map(toClientEvent), { expectedRevision: toClientExpectedRevision(expected) });
      return { nextExpectedRevision: result.nextExpectedRevision, position: positionOf(result.position) };
    } catch (err) {
      // A server configured below maxAppendBytes: the same refusal as the check above.
      if (err instanceof MaxAppendSizeExceededError) throw new AppendTooLargeError(stream, appendBytes(events), err.maxAppendSize);
      throw mapClientError(err, stream, expected);
    }
  }

  async function readStream(stream: string, readOptions: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const direction = readOptions.direction ?? 'forwards';
    const out: RecordedEvent[] = [];
    try {
      const read = client.readStream(stream, {
        direction: READ_DIRECTION[direction],
        fromRevision: readOptions.fromRevision ?? (direction === 'forwards' ? START : END),
        ...(readOptions.maxCount === undefined ? {} : { maxCount: readOptions.maxCount }),
      });
      let held = 0;
      for await (const resolved of read) {
        const event = fromResolvedEvent(resolved);
        if (!event) continue;
        // The client hands events over parsed: past the bound, stop the read rather than hold more.
        if (readOptions.maxBytes !== undefined && out.length > 0 && held >= readOptions.maxBytes) return out;
        out.push(event);
        if (readOptions.maxBytes !== undefined) held += dataSize(event);
      }
      if (readOptions.maxBytes !== undefined) markWholeWindow(out);
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw mapClientError(err, stream);
    }
    return out;
  }

  async function* readAll(readOptions: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    const from = readOptions.fromPosition;
    let remaining = readOptions.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (remaining <= 0) return;
    // The server's read from a position is inclusive and counts system events: read unbounded
    // and stop ourselves; the stream is lazy (back-pressured), so nothing is read ahead much.
    const read = client.readAll({ fromPosition: from === undefined ? START : toClientPosition(from) });
    try {
      for await (const resolved of read) {
        if (!resolved.event || isSystemEvent(resolved.event)) continue;
        const event = fromResolvedEvent(resolved);
        if (!event || (from !== undefined && event.position <= from)) continue;
        yield event;
        if (--remaining === 0) return;
      }
    } catch (err) {
      throw mapClientError(err, '$all');
    } finally {
      await read.cancel().catch(() => {});
    }
  }

  function subscribeToAll(subscribeOptions: SubscribeOptions): Subscription {
    let last = subscribeOptions.fromPosition;
    let closed = false;
    let current: { unsubscribe(): Promise<void> } | undefined;
    let retry: NodeJS.Timeout | undefined;
    // Filtered here rather than by the server: passed-over events still advance the position.
    const types = subscribeOptions.eventTypes ? new Set(subscribeOptions.eventTypes) : undefined;

    const run = async (): Promise<void> => {
      const subscription = client.subscribeToAll({
        fromPosition: last === undefined ? START : toClientPosition(last),
        filter: excludeSystemEvents(),
      });
      current = subscription;
      try {
        for await (const resolved of subscription) {
          if (closed) return;
          if (!resolved.event || isSystemEvent(resolved.event)) continue;
          const event = fromResolvedEvent(resolved);
          // Redelivery after a resubscription is skipped by position: at most once per subscriber.
          if (!event || (last !== undefined && event.position <= last)) continue;
          if (!types || types.has(event.type)) await subscribeOptions.onEvent(event);
          else await subscribeOptions.onPassed?.(event.position);
          last = event.position;
        }
      } catch (err) {
        if (closed) return;
        if (isUnavailable(err)) {
          // A catch-up subscription resumes from our own checkpoint once the server is back.
          log.warn({ error: (err as Error).message, position: String(last) }, 'EventStoreDB subscription dropped: resubscribing');
          retry = setTimeout(() => void run(), resubscribeDelayMs);
          return;
        }
        closed = true;
        subscribeOptions.onError?.(mapClientError(err, '$all') as Error);
      }
    };
    void run();

    const handle = {
      async close(): Promise<void> {
        closed = true;
        clearTimeout(retry);
        open.delete(handle);
        await current?.unsubscribe().catch(() => {});
      },
    };
    open.add(handle);
    return handle;
  }

  return {
    appendToStream,
    readStream,
    readAll,
    subscribeToAll,
    appendLimitBytes,
    async close() {
      await Promise.all([...open].map((s) => s.close()));
      await client.dispose();
    },
    async headPosition() {
      try {
        for await (const resolved of client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })) {
          const position = positionOf(resolved.event?.position);
          return position < 0n ? undefined : position;
        }
        return undefined;
      } catch (err) {
        throw mapClientError(err, '$all');
      }
    },
  };
}

/** The client (6.x) parses esdb:// and esdb+discover://; KurrentDB's schemes mean the same. */
export function normaliseConnectionString(url: string): string {
  const match = /^(kurrentdb|kdb|esdb)(\+discover)?:\/\//.exec(url);
  if (!match) throw new EventStoreUnavailableError(`not an EventStoreDB connection string: ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
  return `esdb${match[2] ?? ''}://${url.slice(match[0].length)}`;
}
