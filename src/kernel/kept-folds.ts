import { readingStore } from '../events/borrowed-store.ts';
import type { EventStore, RecordedEvent } from '../events/port.ts';
import { dataSize } from '../events/stream-window.ts';
import { StreamUses, USES_HALF_LIFE_LOADS, USES_HALF_LIFE_MAX_LOADS } from './stream-uses.ts';

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

export interface KeptFold {
  /** The state and the revision of the last event folded into it (decider.ts: LoadedState). */
  loaded: { state: unknown; revision: bigint | undefined };
  /** How much its state holds, in characters of JSON (Decider.keptSize, or its events' data). */
  bytes: number;
  /** The revision of its stream's latest snapshot (state-snapshots.ts), when one was read or written. */
  shelved?: bigint;
}

/** One decider's kept folds on one store, most recently used last, and the bytes they hold. */
export interface KeptFolds {
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

export function keptFoldsOf(store: EventStore, decider: object): KeptFolds {
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

export function keptFold(kept: KeptFolds, stream: string): KeptFold | undefined {
  return kept.byStream.get(stream) ?? (kept.apart?.stream === stream ? kept.apart.fold : undefined);
}

export function forget(kept: KeptFolds, stream: string): void {
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
export function keep(kept: KeptFolds, stream: string, fold: KeptFold, uses: number): void {
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
export function weightAfter(bytes: number, events: readonly RecordedEvent[], bound: number): number {
  for (const event of events) {
    if (bytes > bound) break;
    bytes += dataSize(event);
  }
  return bytes;
}
