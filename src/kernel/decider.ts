import { setImmediate } from 'node:timers/promises';
import { readingStore } from '../events/borrowed-store.ts';
import { eventId } from '../events/event-ids.ts';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../events/port.ts';
import { wasCutShort } from '../events/stream-window.ts';
import type { JsonObject } from '../signing/rfc8785.ts';
import type { Refusal } from './refusal.ts';
import { StreamUses, USES_HALF_LIFE_LOADS, USES_HALF_LIFE_MAX_LOADS } from './stream-uses.ts';

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
}

export function fold<E extends DomainEvent, S>(decider: Pick<Decider<unknown, E, S>, 'evolve' | 'initialState'>, events: E[]): S {
  return events.reduce(decider.evolve, decider.initialState);
}

export interface HandleOptions<E extends DomainEvent> {
  /** Origin of the deterministic event ids (the payment stream of the call). */
  origin: string;
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
 * Folds kept per store and decider, most recently used last, within the store's bound for each
 * (keepFoldedStates; FOLDED_BYTES_KEPT unless set): a stream is append-only, so a state folded up to
 * revision r stays the state of its first r + 1 events, and the next call reads and folds only
 * what came after. Without it every call read and parsed its whole stream: a memory store, a
 * catalogue entry or an agent's containment with 800 paid writes cost 40-140 ms a call, and more
 * with every write; with it, 3.5-5 ms, flat.
 *
 * The bound is in characters of JSON, not in events, because a state's memory follows what it
 * keeps: by default the data of the events folded (a state that keeps less says how much it
 * holds: Decider.keptSize). A bound of 10,000 events kept 9 MB of a governor (so a busy agent
 * past 10,000 events was folded whole at every call, 1.3 s) and could keep 640 MB of a memory
 * store written with 64 KB values, when each held every record and value of its stream.
 *
 * A stream whose fold is past the bound is kept apart, one per decider (the last one loaded):
 * the memory a call on it holds anyway, kept until another such stream is loaded. A busy agent
 * then pays for its stream once, not twice a call; two such agents taking turns each fold
 * their stream from its start.
 *
 * Streams taking turns that together hold more than the bound are the worst case of keeping the
 * most recently used: each call pushes out the stream called next, so every call folds its
 * stream from its start (24 agents of 5,000 events: 73-93 ms a call, 3.5 ms once they fit). So
 * a fold that would push others out is kept only if its stream weighed more, over its loads
 * lately, than each of them (stream-uses.ts: LRFU, weighed before this load); otherwise it goes
 * to the slot apart. Streams taking turns then keep the folds that fit, and only the others are
 * folded again, while a stream that grows busy still gets in and one busy long ago fades. The
 * bound is the service's STATE_CACHE_MB (keepFoldedStates), and this is its default.
 */
export const FOLDED_BYTES_KEPT = 24 * 2 ** 20;

/**
 * Sets how much the folds kept on `store` may hold, in characters of JSON (keptSize), for each
 * decider: memory for states against reading and folding their streams again. Set by the
 * service at its start; a lower bound set later applies from the next fold kept.
 */
export function keepFoldedStates(store: EventStore, bytes: number): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`the kept folds' bound must be a whole number of bytes, not ${bytes}`);
  keptOn(readingStore(store)).bound.bytes = bytes;
}

interface KeptFold {
  loaded: LoadedState<unknown>;
  /** How much its state holds, in characters of JSON (Decider.keptSize, or its events' data). */
  bytes: number;
}

/** One decider's kept folds on one store, most recently used last, and the bytes they hold. */
interface KeptFolds {
  byStream: Map<string, KeptFold>;
  bytes: number;
  /** What `bytes` may reach: the store's bound, shared by its deciders. */
  bound: { bytes: number };
  /** The last fold loaded and not kept with the others: past the bound on its own, or used less than those it would push out. */
  apart?: { stream: string; fold: KeptFold };
  uses: StreamUses;
}

/** The folds kept on one store, by decider, and the bound each decider's may reach. */
interface StoreFolds {
  bound: { bytes: number };
  byDecider: WeakMap<object, KeptFolds>;
}

const keptByStore = new WeakMap<EventStore, StoreFolds>();

function keptOn(store: EventStore): StoreFolds {
  let folds = keptByStore.get(store);
  if (!folds) keptByStore.set(store, (folds = { bound: { bytes: FOLDED_BYTES_KEPT }, byDecider: new WeakMap() }));
  return folds;
}

function keptFoldsOf(store: EventStore, decider: object): KeptFolds {
  const { bound, byDecider } = keptOn(store);
  let kept = byDecider.get(decider);
  if (!kept) {
    const byStream = new Map<string, KeptFold>();
    // A half-life of two turns of the streams kept, within bounds: the weights kept are of at
    // most five half-lives of streams (stream-uses.ts), so at most about 41,000 however many fit.
    const uses = new StreamUses(() => Math.min(USES_HALF_LIFE_MAX_LOADS, Math.max(USES_HALF_LIFE_LOADS, 2 * byStream.size)));
    byDecider.set(decider, (kept = { byStream, bytes: 0, bound, uses }));
  }
  return kept;
}

function keptFold(kept: KeptFolds, stream: string): KeptFold | undefined {
  return kept.byStream.get(stream) ?? (kept.apart?.stream === stream ? kept.apart.fold : undefined);
}

function forget(kept: KeptFolds, stream: string): void {
  if (kept.apart?.stream === stream) delete kept.apart;
  const previous = kept.byStream.get(stream);
  if (!previous) return;
  kept.byStream.delete(stream);
  kept.bytes -= previous.bytes;
}

/**
 * Keeps `fold`: with the others if its stream was kept with them, or if it fits, or if its stream
 * weighed more (`uses`, before this load) than each of the least recently used folds whose room
 * it needs; else in the slot apart, pushing out nothing. A fold found in the slot apart pushes
 * out nothing either: it was served from there, and competes for room at its next fold whole.
 */
function keep(kept: KeptFolds, stream: string, fold: KeptFold, uses: number): void {
  const wasKept = kept.byStream.has(stream);
  const wasApart = kept.apart?.stream === stream;
  forget(kept, stream);
  const fits = kept.bytes + fold.bytes <= kept.bound.bytes;
  if (fold.bytes > kept.bound.bytes || !(wasKept || fits || (!wasApart && worthItsRoom(kept, uses, fold.bytes)))) {
    kept.apart = { stream, fold };
    return;
  }
  kept.byStream.set(stream, fold);
  kept.bytes += fold.bytes;
  for (const oldest of kept.byStream.keys()) {
    if (kept.bytes <= kept.bound.bytes) break;
    forget(kept, oldest);
  }
}

/** Whether a fold not kept yet may push out the least recently used folds it needs the room of: only if its stream weighs more than each of theirs. */
function worthItsRoom(kept: KeptFolds, uses: number, bytes: number): boolean {
  let over = kept.bytes + bytes - kept.bound.bytes;
  for (const [oldest, fold] of kept.byStream) {
    if (over <= 0) break;
    if (kept.uses.of(oldest) >= uses) return false;
    over -= fold.bytes;
  }
  return true;
}

/** What events add to a fold's weight when its state does not say how much it holds: their data as JSON, counted no further than the bound (past it, the fold is kept apart and its weight no longer matters). */
function weightAfter(bytes: number, events: readonly RecordedEvent[], bound: number): number {
  for (const event of events) {
    if (bytes > bound) break;
    bytes += JSON.stringify(event.data).length;
  }
  return bytes;
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

/** The state of `stream`: the kept fold, extended by the events appended since (by anyone). */
export async function loadState<E extends DomainEvent, S>(store: EventStore, stream: string, decider: Pick<Decider<unknown, E, S>, 'evolve' | 'initialState' | 'keptSize'>, parse: (event: RecordedEvent) => E): Promise<LoadedState<S>> {
  const folds = keptFoldsOf(readingStore(store), decider);
  const uses = folds.uses.count(stream);
  const kept = keptFold(folds, stream) as (KeptFold & { loaded: LoadedState<S> }) | undefined;
  const pageFrom = (from: bigint | undefined) => store.readStream(stream, from === undefined ? PAGE : { fromRevision: from, ...PAGE });
  const from = kept?.loaded.revision === undefined ? undefined : kept.loaded.revision + 1n;
  let page = await pageFrom(from);
  // Only a continuation of the kept fold extends it; anything else is folded from the start.
  if (kept && page.length > 0 && page[0]!.revision !== (from ?? 0n)) {
    forget(folds, stream);
    return loadState(store, stream, decider, parse);
  }
  let state = kept?.loaded.state ?? decider.initialState;
  let revision = kept?.loaded.revision;
  let bytes = kept?.bytes ?? 0;
  for (;;) {
    for (const event of page) state = decider.evolve(state, parse(event));
    if (!decider.keptSize) bytes = weightAfter(bytes, page, folds.bound.bytes);
    revision = page.at(-1)?.revision ?? revision;
    if (page.length < FOLD_PAGE_EVENTS && !wasCutShort(page)) break;
    await setImmediate();
    page = await pageFrom(revision! + 1n);
  }
  const loaded = { state, revision };
  keep(folds, stream, { loaded, bytes: decider.keptSize ? decider.keptSize(state) : bytes }, uses);
  return loaded;
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
  options: HandleOptions<E>,
): Promise<Handled<E, S>> {
  const maxAttempts = options.maxAttempts ?? 50;
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadState(store, stream, decider, options.parse);
    const events = decider.decide(command, state);
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
