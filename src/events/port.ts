import type { JsonObject, JsonValue } from '../signing/rfc8785.ts';

/**
 * The event-store port. Semantics follow EventStoreDB's so that every adapter (in-memory,
 * embedded file log, EventStoreDB) can pass one conformance suite:
 * - revisions count from 0 within a stream; positions are global and strictly increasing;
 * - `expectedRevision` guards an append: "no_stream", "exists", "any", or the exact revision
 *   of the stream's last event;
 * - appends are idempotent by event id: the same ids appended again at the same expected
 *   revision (or with "any") succeed without writing twice.
 */
export type ExpectedRevision = 'no_stream' | 'exists' | 'any' | bigint;

export interface EventData {
  id: string;
  type: string;
  data: JsonValue;
  /**
   * JSON.stringify(data) as UTF-8, when it was made already (a record's text made on an engine
   * thread, the event's few other members around it): a store that writes JSON text copies it
   * instead of serialising `data` again, which for an 11 MB record held the event loop for half
   * a second. It must be exactly that text; the stored and read-back event are the same either way.
   */
  dataJson?: Uint8Array;
  metadata?: JsonObject;
}

export interface RecordedEvent {
  id: string;
  type: string;
  data: JsonValue;
  metadata: JsonObject;
  stream: string;
  revision: bigint;
  position: bigint;
  /** Unix milliseconds at which the store accepted the event. */
  recordedAt: number;
}

export interface AppendResult {
  nextExpectedRevision: bigint;
  position: bigint;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive; defaults to the start (forwards) or the end (backwards). */
  fromRevision?: bigint;
  maxCount?: number;
  /**
   * A bound on the bytes a read holds: events are taken, in the read's direction, while those
   * taken so far hold fewer than this many bytes (each event's size as the store keeps it: at
   * least its data's JSON), so a read takes at least one event and stops at the first that
   * reaches the bound. A read the bound cut nothing of is marked (`heldWholeWindow` in
   * stream-window.ts); one without the mark may have more of its window after it, whether or not
   * it has maxCount events.
   */
  maxBytes?: number;
}

export interface ReadAllOptions {
  /** Exclusive lower bound: events with position > fromPosition. Omit to start at the beginning. */
  fromPosition?: bigint;
  maxCount?: number;
}

export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Exclusive: deliver events with position > fromPosition (catch up first, then live). */
  fromPosition?: bigint;
  /**
   * Only events of these types reach onEvent; absent, every event does. The others are passed
   * over in order, their positions told to onPassed, and an adapter need not even decode them:
   * a read model that folds one type out of many pays for that type only.
   */
  eventTypes?: readonly string[];
  onEvent(event: RecordedEvent): void | Promise<void>;
  /** The position of each event passed over (see eventTypes), in order with onEvent's. */
  onPassed?(position: bigint): void | Promise<void>;
  onError?(error: Error): void;
}

export interface EventStore {
  appendToStream(stream: string, events: EventData[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult>;
  /** An absent stream reads as empty. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;
  /** Events are delivered in position order, one at a time (the next waits for onEvent). */
  subscribeToAll(options: SubscribeOptions): Subscription;
  close(): Promise<void>;
  /**
   * Position of the last event in the log (undefined: an empty log), for readers that keep state
   * past a restart and must notice a log that ends before it (one restored from a backup).
   */
  headPosition?(): Promise<bigint | undefined>;
  /** Whether the store takes appends now, and why not; absent: always ready as far as it knows. */
  readiness?(): StoreReadiness;
  /**
   * The most bytes one append may carry (`appendBytes`: its events' data and metadata as JSON
   * text), when the store has such a limit: EventStoreDB refuses a larger write whole (its
   * MaxAppendSize, 1 MiB by default). A larger append is refused with AppendTooLargeError before
   * anything is written; the paid-call saga asks first, so that a result the store cannot hold
   * is refused before the payment is taken.
   */
  readonly appendLimitBytes?: number;
  /**
   * Where folded states of long streams are kept beside the log (state snapshots: what can be
   * made again from the log, never the truth of it), when the store keeps them: absent, every
   * state not held in memory is folded from its stream's start.
   */
  readonly stateShelf?: StateShelf;
}

/**
 * Texts kept under a name beside the log, across restarts: a cache of what the log holds. A
 * text may be lost, or be older than the log, and a reader checks it against the log before
 * using it (kernel/state-snapshots.ts).
 */
export interface StateShelf {
  /** The text put last under `name`, or undefined when there is none (answered without touching the disk for a name never put). */
  get(name: string): Promise<string | undefined>;
  /** Puts `text` under `name`, in place of any there, whole or not at all. */
  put(name: string, text: string): Promise<void>;
  /** Forgets `name`'s text (one found unusable). */
  drop(name: string): Promise<void>;
  /**
   * Hears that no text could be made for `name` at all: the state's codec threw, a bug of the
   * codec rather than of the shelf. The kernel has no logger; a shelf that has one says so.
   */
  encodeFailed?(name: string, error: Error): void;
}

export type StoreReadiness = { ready: true } | { ready: false; reason: string };

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's current last revision, or "no_stream". */
    readonly actual: bigint | 'no_stream',
  ) {
    super(`wrong expected revision on ${stream}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** The store cannot be reached; the HTTP layer answers 503 and nothing is charged. */
export class EventStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventStoreUnavailableError';
  }
}

/** An append larger than the store's appendLimitBytes: refused whole, nothing written. */
export class AppendTooLargeError extends Error {
  constructor(
    readonly stream: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`an append of ${bytes} bytes to ${stream} exceeds the event store's limit of ${limit} bytes per append`);
    this.name = 'AppendTooLargeError';
  }
}
