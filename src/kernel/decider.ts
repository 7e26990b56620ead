import { setImmediate } from 'node:timers/promises';
import { readingStore } from '../events/borrowed-store.ts';
import { eventId } from '../events/event-ids.ts';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../events/port.ts';
import { heldWholeWindow } from '../events/stream-window.ts';
import type { JsonObject } from '../signing/rfc8785.ts';
import type { Refusal } from './refusal.ts';
import { forget, keep, keptFold, keptFoldsOf, weightAfter, type KeptFold } from './kept-folds.ts';

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
  let kept = keptFold(folds, stream) as (KeptFold & { loaded: LoadedState<S> }) | undefined;
  const pageFrom = (from: bigint | undefined) => store.readStream(stream, from === undefined ? PAGE : { fromRevision: from, ...PAGE });
  const from = kept?.loaded.revision === undefined ? undefined : kept.loaded.revision + 1n;
  let page = await pageFrom(from);
  // Only a continuation of the kept fold extends it; anything else is folded from the start.
  if (kept && page.length > 0 && page[0]!.revision !== (from ?? 0n)) {
    forget(folds, stream);
    kept = undefined;
    page = await pageFrom(undefined);
  }
  let state = kept?.loaded.state ?? decider.initialState;
  let revision = kept?.loaded.revision;
  let bytes = kept?.bytes ?? 0;
  for (;;) {
    for (const event of page) state = decider.evolve(state, parse(event));
    if (!decider.keptSize) bytes = weightAfter(bytes, page, folds.bound.bytes);
    revision = page.at(-1)?.revision ?? revision;
    // A short page is the stream's end only if the store says maxBytes cut nothing of it.
    if (page.length === 0 || (page.length < FOLD_PAGE_EVENTS && heldWholeWindow(page))) break;
    await setImmediate();
    page = await pageFrom(revision! + 1n);
  }
  const loaded = { state, revision };
  keep(folds, stream, { loaded, bytes: decider.keptSize ? decider.keptSize(state) : bytes }, uses);
  return loaded;
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
