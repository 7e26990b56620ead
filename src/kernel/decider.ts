import { setImmediate } from 'node:timers/promises';
import { readingStore } from '../events/borrowed-store.ts';
import { eventId } from '../events/event-ids.ts';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent, type StateShelf } from '../events/port.ts';
import { heldWholeWindow } from '../events/stream-window.ts';
import type { JsonObject } from '../signing/rfc8785.ts';
import type { Refusal } from './refusal.ts';
import { forget, keep, keptFold, keptFoldsOf, weightAfter, type KeptFolds } from './kept-folds.ts';
import { dropSnapshot, matchesEvent, shelvedSnapshot, shelveSnapshot, snapshotDue, type FoldedUpTo, type StateCodec } from './state-snapshots.ts';

/** A domain event as deciders see it: a type and a JSON payload. */
export interface DomainEvent {
  type: string;
  data: JsonObject;
}

/**
 * A decider per aggregate: `decide` turns a command into new events given the current state
 * (throwing a DomainRefusal when the command cannot apply), `evolve` folds one event into the
 * state. Both are pure.
 */
export interface Decider<C, E extends DomainEvent, S> {
  initialState: S;
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
  /**
   * How much the state holds, in characters of JSON: what a kept fold of it counts against the
   * bound (keepFoldedStates). By default the data of every event folded into it, for a state
   * that keeps what its events carry; a state that keeps less says how much it holds.
   */
  keptSize?(state: S): number;
  /**
   * How the state is written to a snapshot beside the log and read back (state-snapshots.ts), for
   * a stream that grows long: its state is then folded, after a restart or when it was not kept
   * in memory, from the snapshot and the events after it, not from the stream's start.
   */
  snapshot?: StateCodec<S>;
}

export function fold<E extends DomainEvent, S>(decider: Pick<Decider<unknown, E, S>, 'evolve' | 'initialState'>, events: E[]): S {
  return events.reduce(decider.evolve, decider.initialState);
}

export interface HandleOptions<E extends DomainEvent, C = unknown, S = unknown> {
  /** Origin of the deterministic event ids (the payment stream of the call). */
  origin: string;
  /**
   * What the command needs read from the store beside the state before it is decided (an
   * archived decision it names), added to it: run at every attempt, with that attempt's state.
   */
  prepare?(command: C, state: S): Promise<C>;
  /** Parses a stored event back into the aggregate's event type (zod at the boundary). */
  parse(event: RecordedEvent): E;
  metadata?: JsonObject;
  /** Attempts under optimistic concurrency before giving up. */
  maxAttempts?: number;
}

export interface Handled<E, S> {
  state: S;
  /** The events this call wrote (or had already written, on a resumed call). */
  events: E[];
  /** The stream's last revision after the call. */
  revision: bigint;
}

/** A stream's state and the revision of the last event folded into it (undefined: no stream). */
export interface LoadedState<S> {
  state: S;
  revision: bigint | undefined;
}

/**
 * Events read and folded at a time, at most. A long stream (an agent's budget of 50,000 events:
 * 36 MiB of data, a second to read and fold) is read a page at a time, letting other requests
 * run between pages: the event loop is held for a page (a few milliseconds), not for the whole
 * stream, and only one page of events is held beside the state.
 */
export const FOLD_PAGE_EVENTS = 512;
/**
 * Bytes of events in one page, at most (but for a page of one event larger than this): 512
 * memory versions at the largest MEMORY_VALUE_CAP_BYTES would be half a gigabyte read, and
 * as much again parsed, for one fold.
 */
export const FOLD_PAGE_BYTES = 4 * 1024 * 1024;

const PAGE = { maxCount: FOLD_PAGE_EVENTS, maxBytes: FOLD_PAGE_BYTES } as const;

/** Where a fold begins: a kept fold, a snapshot (whose last event the stream must still hold), or the stream's start. */
interface FoldStart<S> {
  state: S;
  revision: bigint | undefined;
  bytes: number;
  /** The revision of the stream's latest snapshot, if one was read or written. */
  shelved?: bigint;
  /** For a start from a snapshot: the event it was folded up to, which the stream must still hold. */
  upTo?: FoldedUpTo;
}

/**
 * The state of `stream`: the kept fold, extended by the events appended since (by anyone); or,
 * when none is kept, the stream's snapshot (state-snapshots.ts), extended the same way; or the
 * stream folded from its start.
 */
export async function loadState<E extends DomainEvent, S>(store: EventStore, stream: string, decider: Pick<Decider<unknown, E, S>, 'evolve' | 'initialState' | 'keptSize' | 'snapshot'>, parse: (event: RecordedEvent) => E): Promise<LoadedState<S>> {
  const reading = readingStore(store);
  const folds = keptFoldsOf(reading, decider);
  const uses = folds.uses.count(stream);
  const shelf = decider.snapshot ? reading.stateShelf : undefined;
  const pageFrom = (from: bigint | undefined) => store.readStream(stream, from === undefined ? PAGE : { fromRevision: from, ...PAGE });
  let start = keptStart<S>(folds, stream) ?? (shelf && (await snapshotStart(shelf, decider.snapshot!, stream, decider.keptSize)));
  // A snapshot's first read begins at its last event, to check that the stream still holds it.
  let page = await pageFrom(start?.upTo ? start.upTo.revision : start?.revision === undefined ? undefined : start.revision + 1n);
  if (start && !continuedBy(start, page)) {
    // Only a continuation of the kept fold or snapshot extends it; anything else is folded from the start.
    forget(folds, stream);
    if (start.upTo) await dropSnapshot(shelf!, decider.snapshot!, stream);
    start = undefined;
    page = await pageFrom(undefined);
  }
  let { state, revision, bytes } = start ?? { state: decider.initialState, revision: undefined, bytes: 0 };
  let last: RecordedEvent | undefined;
  for (let skip = start?.upTo ? 1 : 0; ; skip = 0) {
    for (let i = skip; i < page.length; i++) state = decider.evolve(state, parse(page[i]!));
    if (!decider.keptSize) bytes = weightAfter(bytes, skip ? page.slice(skip) : page, folds.bound.bytes);
    if (page.length > skip) last = page.at(-1);
    revision = page.at(-1)?.revision ?? revision;
    // A short page is the stream's end only if the store says maxBytes cut nothing of it.
    if (page.length === 0 || (page.length < FOLD_PAGE_EVENTS && heldWholeWindow(page))) break;
    await setImmediate();
    page = await pageFrom(revision! + 1n);
  }
  let shelved = start?.shelved;
  if (shelf && last && snapshotDue(last.revision, shelved)) {
    shelveSnapshot(shelf, decider.snapshot!, stream, state, last);
    shelved = last.revision;
  }
  const loaded = { state, revision };
  keep(folds, stream, { loaded, bytes: decider.keptSize ? decider.keptSize(state) : bytes, ...(shelved === undefined ? {} : { shelved }) }, uses);
  return loaded;
}

function keptStart<S>(folds: KeptFolds, stream: string): FoldStart<S> | undefined {
  const kept = keptFold(folds, stream);
  if (!kept) return undefined;
  const { state, revision } = kept.loaded as LoadedState<S>;
  return { state, revision, bytes: kept.bytes, ...(kept.shelved === undefined ? {} : { shelved: kept.shelved }) };
}

async function snapshotStart<S>(shelf: StateShelf, codec: StateCodec<S>, stream: string, keptSize: ((state: S) => number) | undefined): Promise<FoldStart<S> | undefined> {
  const snapshot = await shelvedSnapshot(shelf, codec, stream);
  if (!snapshot) return undefined;
  const { state, upTo, chars } = snapshot;
  // A decider without keptSize weighs its fold by its events' data, which a snapshot does not carry: the snapshot's text stands in.
  return { state, revision: upTo.revision, bytes: keptSize ? keptSize(state) : chars, shelved: upTo.revision, upTo };
}

/** Whether the first page read after `start` continues it: the next revision (a kept fold), or the very event a snapshot was folded up to. */
function continuedBy(start: FoldStart<unknown>, page: readonly RecordedEvent[]): boolean {
  if (start.upTo) return matchesEvent(start.upTo, page[0]);
  return page.length === 0 || page[0]!.revision === (start.revision === undefined ? 0n : start.revision + 1n);
}

/** Where the event holding a paid call's record lies in an aggregate's stream: what a state keeps instead of the record (eventAt reads it back). */
export interface RecordPlace {
  paymentId: string;
  revision: number;
}

/**
 * The event at `revision` of `stream`, parsed: what a state that keeps where its records lie,
 * not the records, reads back when a call answers with one. Throws when the stream has no such
 * event (the state and the stream would disagree: a fault, never an answer).
 */
export async function eventAt<E>(store: EventStore, stream: string, revision: number, parse: (event: RecordedEvent) => E): Promise<E> {
  const [event] = await store.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 });
  if (event?.revision !== BigInt(revision)) throw new Error(`${stream}: no event at revision ${revision}`);
  return parse(event);
}

/**
 * Read -> fold -> decide -> append at the expected revision, retried on a concurrent write.
 * The stream stays linear under contention, and a decider that recognises its own earlier
 * events (by the payment in their data) makes a resumed call a no-op. The state is loaded with
 * loadState: only the events since the last call are read.
 */
export async function handleCommand<C, E extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  decider: Decider<C, E, S>,
  command: C,
  options: HandleOptions<E, C, S>,
): Promise<Handled<E, S>> {
  const maxAttempts = options.maxAttempts ?? 50;
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadState(store, stream, decider, options.parse);
    const events = decider.decide(options.prepare ? await options.prepare(command, state) : command, state);
    if (events.length === 0) return { state, events, revision: revision ?? -1n };
    try {
      const result = await store.appendToStream(
        stream,
        events.map((e, i) => ({ id: eventId(options.origin, `${stream}/${e.type}`, i), type: e.type, data: e.data, metadata: options.metadata ?? {} })),
        { expectedRevision: revision ?? 'no_stream' },
      );
      return { state: events.reduce(decider.evolve, state), events, revision: result.nextExpectedRevision };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw err;
      // Back off a little, jittered, so that contenders do not collide in lockstep.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 2)));
    }
  }
}

/** A command that cannot apply to the aggregate's state; the HTTP layer maps it to a status. */
export class DomainRefusal extends Error {
  constructor(
    readonly status: 403 | 409 | 422,
    readonly error: string,
    message: string,
    readonly outcome?: string,
  ) {
    super(message);
    this.name = 'DomainRefusal';
  }

  /** As the answer a paid call gives instead of a result. */
  asRefusal(): Refusal {
    return { status: this.status, error: this.error, message: this.message, ...(this.outcome ? { outcome: this.outcome } : {}) };
  }
}
