import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checkExpectedRevision, isPositional, matchIdempotentAppendIn, mayBeAppendedAlready } from '../append-rules.ts';
import {
  EventStoreUnavailableError,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type StoreReadiness,
} from '../port.ts';
import { createSubscriptionHub, published, type PublishedEvent } from '../subscription-hub.ts';
import { markWholeWindow, takenWithin } from '../stream-window.ts';
import { decodeEvent } from './event-decoding.ts';
import { BATCH_HEADER_BYTES, FRAME_HEADER_BYTES } from './framing.ts';
import type { Location } from './location.ts';
import { GroupCommitWriter } from './group-commit.ts';
import { IndexCheckpointer } from './index-checkpointer.ts';
import { INDEX_DIRECTORY, PersistedIndex } from './lmdb-index.ts';
import { acquireLock } from './lock.ts';
import { WriterCheckpoint } from './writer-checkpoint.ts';
import { stderrLogger, type EventLogger } from './logger.ts';
import { recoverLog } from './recovery.ts';
import { SegmentReader } from './segment-reader.ts';
import { openStateShelf, STATES_DIRECTORY, type ClosableStateShelf } from '../state-shelf.ts';
import type { StagedBatch } from './staged-batch.ts';

export interface FileEventStoreOptions {
  /** Directory of the log (segments and lock file); created when absent. */
  dir: string;
  log?: EventLogger;
  /** A segment is closed and a new one started once it would grow past this. Default 64 MiB. */
  maxSegmentBytes?: number;
  /** Upper bound of one group commit (a single larger append still goes alone). Default 4 MiB. */
  maxBatchBytes?: number;
  /**
   * Opens without the writer lock and without repairing anything, for auditors reading a
   * directory a running service may be writing: sees what was there at open, refuses appends.
   */
  readOnly?: boolean;
  /** After a failed write (a full disk), how often the log tries to recover by itself. Default 2 s. */
  recoveryIntervalMs?: number;
  /** What the open checks: every frame ('all', the default) or only those after the index checkpoint (recovery.ts). */
  verify?: 'all' | 'checkpoint';
  /** The index on disk is checkpointed every this many durable events. Default 1,024. */
  indexCheckpointEvents?: number;
}

export const LOCK_FILE_NAME = 'LOCK';
/** Sequential reads of the log go in chunks of this size. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * The embedded, durable event log: segment files of checksummed frames written by group commit,
 * one writer process per directory, recovered and indexed at start. Only durable (synced) events
 * are ever read or delivered, so no reader can observe an event that a crash could take back.
 */
/** The port, plus where the log ends: lets the audit show real progress. */
export interface HeadAwareEventStore extends EventStore {
  /** Position of the last event in the log, or undefined for an empty log. */
  headPosition(): Promise<bigint | undefined>;
}

export async function openFileEventStore(options: FileEventStoreOptions): Promise<HeadAwareEventStore> {
  const log = options.log ?? stderrLogger;
  const readOnly = options.readOnly ?? false;
  if (!readOnly) await mkdir(options.dir, { recursive: true });
  const lock = readOnly ? { release: async () => {} } : await acquireLock(join(options.dir, LOCK_FILE_NAME), log);
  let persisted: PersistedIndex | undefined;
  let recovered;
  let stateShelf: ClosableStateShelf | undefined;
  try {
    persisted = await openPersistedIndex(join(options.dir, INDEX_DIRECTORY), readOnly, log);
    recovered = await recoverLog(options.dir, log, { readOnly, persisted, verify: options.verify });
    // A reader of the log (the audit) folds no states and writes nothing beside it.
    if (!readOnly) stateShelf = await openStateShelf(join(options.dir, STATES_DIRECTORY), log);
  } catch (err) {
    await persisted?.close();
    await lock.release();
    throw err;
  }
  let { index, segments } = recovered;
  let reader = new SegmentReader(segments);
  const hub = createSubscriptionHub((from) => readAll({ fromPosition: from }));
  const durableWaiters: { position: number; resolve(): void; reject(e: Error): void }[] = [];
  // What the writer checkpoint has written, the index checkpointer may write: never more.
  const checkpoint = readOnly ? undefined : new WriterCheckpoint(options.dir, (events) => indexCheckpointer?.acknowledge(events));
  const openWriter = async (tailBytes: number): Promise<GroupCommitWriter> =>
    new GroupCommitWriter({
      dir: options.dir,
      index,
      segments,
      tail: await open(segments.at(-1)!.path, 'r+'),
      tailBytes,
      maxBatchBytes: options.maxBatchBytes ?? 4 * 1024 * 1024,
      maxSegmentBytes: options.maxSegmentBytes ?? 64 * 1024 * 1024,
      onDurable: (batch) => {
        checkpoint!.advance(batch.firstPosition + batch.eventCount);
        indexCheckpointer?.durable(boundaryAfter(batch.firstPosition + batch.eventCount));
        if (durableWaiters.length > 0) settleWaiters();
        if (hub.hasSubscribers) hub.publish(liveEventsOf(batch));
      },
      // Idempotent replays waiting on a batch that failed must fail with it, not wait forever.
      onFailed: (error) => {
        settleWaiters();
        log.error({ dir: options.dir, error: error.message }, 'event log write failed: appends are refused (503) until the log recovers by itself');
        scheduleRecovery();
      },
    });
  const newCheckpointer = (): IndexCheckpointer | undefined => {
    if (readOnly || !persisted) return undefined;
    return new IndexCheckpointer({ index, persisted, segments, log, everyEvents: options.indexCheckpointEvents });
  };
  /** The boundary after the durable batch that ends before `events`: where its last record ends. */
  const boundaryAfter = (events: number) => {
    const last = index.location(events - 1)!;
    return { events, segment: last.segment, offset: last.offset + last.length };
  };
  let indexCheckpointer = newCheckpointer();
  let writer: GroupCommitWriter | ReadOnlyWriter = readOnly ? new ReadOnlyWriter(index.nextPosition) : await openWriter(recovered.tailBytes);
  let recovering: NodeJS.Timeout | undefined;

  /**
   * A failed write (no space left, an I/O error) stops appends, not the service: every few
   * seconds the log is opened again from what is on disk (recovery cuts the unacknowledged tail
   * the failed batch may have left), and appends resume once that works. Nothing acknowledged is
   * lost, nothing refused is kept.
   */
  function scheduleRecovery(): void {
    if (recovering || closed) return;
    recovering = setTimeout(() => void recoverNow(), options.recoveryIntervalMs ?? 2_000);
    recovering.unref();
  }

  async function recoverNow(): Promise<void> {
    try {
      await writer.closeTail().catch(() => undefined);
      await indexCheckpointer?.stop();
      const again = await recoverLog(options.dir, log, { readOnly: false, persisted, verify: 'checkpoint', refusedFrom: writer.durableCount });
      index = again.index;
      segments = again.segments;
      indexCheckpointer = newCheckpointer();
      const previousReader = reader;
      reader = new SegmentReader(segments);
      await previousReader.close().catch(() => undefined);
      writer = await openWriter(again.tailBytes);
      recovering = undefined;
      log.warn({ dir: options.dir, events: index.nextPosition }, 'event log recovered after a failed write: appends accepted again');
    } catch (err) {
      recovering = undefined;
      log.error({ dir: options.dir, error: (err as Error).message }, 'event log still cannot be written; trying again');
      scheduleRecovery();
    }
  }

  let closed = false;
  log.info({ dir: options.dir, events: index.nextPosition, replayedEvents: recovered.replayedEvents, segments: segments.length, persistedIndex: persisted !== undefined }, 'event log opened');

  function settleWaiters(): void {
    for (let i = durableWaiters.length - 1; i >= 0; i--) {
      const waiter = durableWaiters[i]!;
      if (writer.failed) waiter.reject(writer.failed);
      else if (waiter.position < writer.durableCount) waiter.resolve();
      else continue;
      durableWaiters.splice(i, 1);
    }
  }

  /** An idempotent replay of an append still in flight is acknowledged when the original is. */
  function whenDurable(position: number): Promise<void> {
    if (position < writer.durableCount) return Promise.resolve();
    if (writer.failed) return Promise.reject(writer.failed);
    return new Promise((resolve, reject) => durableWaiters.push({ position, resolve, reject }));
  }

  function assertWritable(): void {
    if (closed) throw new EventStoreUnavailableError('event log is closed');
    if (writer.failed) throw writer.failed;
  }

  function appendToStream(stream: string, events: EventData[], appendOptions: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    try {
      return stageAppend(stream, events, appendOptions.expectedRevision ?? 'any');
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Checks and stages an append, synchronously: appends are checked and ordered one at a time,
   * so of concurrent appends at the same expected revision exactly one wins. Returns the promise
   * of its acknowledgement; throws what refuses it. Not an async function: under load its
   * suspended state per append was the largest allocation of an append, and nothing here waits.
   */
  function stageAppend(stream: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    assertWritable();
    const length = index.streamLength(stream);
    // Only an append that could be a replay makes the stream be looked at: at an exact revision,
    // one behind the stream's end; otherwise, one whose first id the stream may hold (the index
    // is asked, which can mean a read on disk).
    const first = events[0];
    const couldBeReplay = first !== undefined && length > 0 && (isPositional(expected) ? mayBeAppendedAlready(length, expected) : index.mayHoldId(stream, first.id));
    if (couldBeReplay) {
      const replay = matchIdempotentAppendIn(
        stream,
        {
          length,
          idAt: (r) => (r < length ? index.idAt(index.positionAt(stream, r)) : undefined),
          positionAt: (r) => BigInt(index.positionAt(stream, r)),
          revisionOfId: (id) => index.revisionOfId(stream, id),
        },
        events,
        expected,
      );
      if (replay) return whenDurable(Number(replay.position)).then(() => replay);
    }
    checkExpectedRevision(stream, length, expected);
    if (events.length === 0) {
      const last = length > 0 ? index.positionAt(stream, length - 1) : index.nextPosition - 1;
      return Promise.resolve({ nextExpectedRevision: BigInt(length - 1), position: BigInt(last) });
    }
    // The records written to the batch are the snapshot of the caller's objects (nothing else
    // keeps them), so a caller mutating its data afterwards changes nothing that was appended.
    const firstPosition = index.nextPosition;
    const durable = writer.append(firstPosition, stream, length, Date.now(), events);
    index.reserve(stream, events, length);
    const result: AppendResult = { nextExpectedRevision: BigInt(length + events.length - 1), position: BigInt(firstPosition + events.length - 1) };
    return durable.then(() => result);
  }

  /**
   * The events of a synced batch, for live subscribers, decoded from the very bytes on disk:
   * live delivery and catch-up from the log see the same events. Only the types some subscriber
   * reads are decoded, and now: the batch's buffer is reused once onDurable returns (a large
   * record's data is copied out as text, parsed when a subscriber reads it: event-decoding.ts).
   */
  function liveEventsOf(batch: StagedBatch): PublishedEvent[] {
    const events: PublishedEvent[] = [];
    let offset = BATCH_HEADER_BYTES;
    for (let i = 0; i < batch.frameLengths.length; i++) {
      const length = batch.frameLengths[i]!;
      const type = batch.frameTypes[i]!;
      const position = BigInt(batch.firstPosition + i);
      if (hub.wants(type)) events.push(published(decodeEvent(batch.bytes, offset, length - FRAME_HEADER_BYTES)));
      else events.push({ position, type, decode: passedOver });
      offset += length;
    }
    return events;
  }

  async function readStream(stream: string, readOptions: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const durable = writer.durableCount;
    let visible = index.streamLength(stream);
    while (visible > 0 && index.positionAt(stream, visible - 1) >= durable) visible--;
    if (visible === 0) return [];
    const max = readOptions.maxCount ?? Number.MAX_SAFE_INTEGER;
    const backwards = readOptions.direction === 'backwards';
    // The window of revisions, lowest first: a stream's events lie in the log in revision order.
    const last = backwards ? Math.min(Number(readOptions.fromRevision ?? BigInt(visible - 1)), visible - 1) : Math.min(visible - 1, Number(readOptions.fromRevision ?? 0n) + max - 1);
    const first = backwards ? Math.max(0, last - max + 1) : Number(readOptions.fromRevision ?? 0n);
    const window = index.positionsAt(stream, first, last).map((position) => index.location(position)!);
    const locations = readOptions.maxBytes === undefined ? window : withinBytes(window, readOptions.maxBytes, backwards);
    const events = await reader.readEvents(locations);
    if (backwards) events.reverse();
    return readOptions.maxBytes !== undefined && locations.length === window.length ? markWholeWindow(events) : events;
  }

  async function* readAll(readOptions: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    let next = readOptions.fromPosition === undefined ? 0 : Number(readOptions.fromPosition) + 1;
    let remaining = readOptions.maxCount ?? Number.MAX_SAFE_INTEGER;
    while (remaining > 0) {
      // Re-read the durable bound at every chunk: a long read also sees what was written meanwhile.
      const durable = writer.durableCount;
      if (next >= durable) return;
      const first = index.location(next)!;
      const start = first.offset;
      const locations = [first];
      while (next + locations.length < durable && locations.length < remaining) {
        const candidate = index.location(next + locations.length)!;
        if (candidate.segment !== first.segment || candidate.offset + candidate.length - start > READ_CHUNK_BYTES) break;
        locations.push(candidate);
      }
      const lastLocation = locations.at(-1)!;
      const chunk = await reader.readBytes(first.segment, start, lastLocation.offset + lastLocation.length - start);
      for (const location of locations) yield reader.decodeAt(chunk, location.offset - start, location);
      const last = next + locations.length - 1;
      remaining -= last - next + 1;
      next = last + 1;
    }
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    if (recovering) clearTimeout(recovering);
    await writer.drain();
    hub.closeAll();
    await writer.closeTail();
    checkpoint?.close();
    // Everything durable goes into the index on disk: the next start replays nothing.
    await indexCheckpointer?.flush().catch((err: Error) => log.warn({ error: err.message }, 'event index: the last checkpoint failed; the next start reads the tail from the log'));
    await reader.close();
    // Unrecorded (a full disk), the index is trusted again by this boot of the machine and rebuilt after a reboot.
    await persisted?.close().catch((err: Error) => log.warn({ error: err.message }, 'event index: its clean close could not be recorded'));
    await stateShelf?.close();
    await lock.release();
    log.info({ dir: options.dir, events: writer.durableCount }, 'event log closed');
  }

  return {
    appendToStream,
    readStream,
    readAll,
    subscribeToAll: (subscribeOptions: SubscribeOptions): Subscription => hub.subscribe(subscribeOptions),
    close,
    headPosition: async () => (writer.durableCount === 0 ? undefined : BigInt(writer.durableCount - 1)),
    ...(stateShelf ? { stateShelf } : {}),
    readiness: (): StoreReadiness => {
      if (closed) return { ready: false, reason: 'the event log is closed' };
      if (readOnly) return { ready: false, reason: 'the event log is open read-only' };
      return writer.failed ? { ready: false, reason: `the event log cannot be written (${writer.failed.message}); it retries by itself` } : { ready: true };
    },
  };
}

/**
 * Opens the index on disk. An index that cannot be opened (damaged, or written by an
 * incompatible LMDB) is only a cache of the log: a writer deletes it and builds it again, a
 * reader does without it.
 */
async function openPersistedIndex(dir: string, readOnly: boolean, log: EventLogger): Promise<PersistedIndex | undefined> {
  try {
    return PersistedIndex.open(dir, { readOnly });
  } catch (err) {
    log.warn({ dir, error: (err as Error).message }, `event index cannot be opened: ${readOnly ? 'reading the log without it' : 'rebuilding it from the log'}`);
    if (readOnly) return undefined;
    await rm(dir, { recursive: true, force: true });
    return PersistedIndex.open(dir, { readOnly });
  }
}

/** Stands in for the writer of a read-only store: everything is durable, nothing is accepted. */
class ReadOnlyWriter implements Pick<GroupCommitWriter, 'durableCount' | 'failed' | 'append' | 'drain' | 'closeTail'> {
  readonly failed = new EventStoreUnavailableError('event log is opened read-only');
  constructor(readonly durableCount: number) {}
  append(): Promise<void> {
    throw this.failed;
  }
  async drain(): Promise<void> {}
  async closeTail(): Promise<void> {}
}

/**
 * The part of a window (lowest revision first) a read bounded by `maxBytes` takes, counting
 * frames as they lie on disk, from its low end or, for a backwards read, its high end: nothing
 * past the bound is read.
 */
function withinBytes(window: Location[], maxBytes: number, backwards: boolean): Location[] {
  const last = window.length - 1;
  const taken = takenWithin(window.length, (i) => window[backwards ? last - i : i]!.length, maxBytes);
  return backwards ? window.slice(window.length - taken) : window.slice(0, taken);
}

function passedOver(): never {
  throw new Error('event not decoded: no subscriber reads its type');
}
