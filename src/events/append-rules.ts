import { AppendTooLargeError, WrongExpectedRevisionError, type AppendResult, type EventData, type ExpectedRevision } from './port.ts';

interface StoredRef {
  id: string;
  revision: bigint;
  position: bigint;
}

/** What the idempotency rule needs to know of a stream, without copying it. */
export interface StreamView {
  length: number;
  idAt(revision: number): string | undefined;
  positionAt(revision: number): bigint;
  /** The revision of the stream's latest event with this id, or -1 (EventStoreDB's cache too holds the latest event of an id). */
  revisionOfId(id: string): number;
}

/**
 * EventStoreDB's idempotency rule (its index writer's commit check), shared by the embedded
 * adapters. An append is the same append seen twice, and succeeds without writing, when its
 * events are already in the stream, in order, where it says they go:
 * - with an exact expected revision (or "no stream") behind the stream's end: from the revision
 *   after the expected one. Its first event elsewhere there is a conflict, and so is an append
 *   only part of which is there;
 * - with an expected revision at the stream's end there is nothing to compare: the events are
 *   appended, whatever ids the stream holds already (EventStoreDB does not look either);
 * - with "any" or "exists": from the stream's latest event with its first event's id. EventStoreDB
 *   answers this from a cache of the latest event of each id, at best effort; the embedded stores
 *   ask the stream, so they always find it, unless the id was used again in another stream since
 *   (then they too answer at best effort: test/events/idempotency-rule.test.ts).
 */
export function matchIdempotentAppend(
  stream: string,
  existing: readonly StoredRef[],
  events: readonly EventData[],
  expected: ExpectedRevision,
): AppendResult | undefined {
  return matchIdempotentAppendIn(
    stream,
    {
      length: existing.length,
      idAt: (r) => existing[r]?.id,
      positionAt: (r) => existing[r]!.position,
      revisionOfId: (id) => existing.findLastIndex((e) => e.id === id),
    },
    events,
    expected,
  );
}

export function matchIdempotentAppendIn(
  stream: string,
  existing: StreamView,
  events: readonly EventData[],
  expected: ExpectedRevision,
): AppendResult | undefined {
  const first = events[0];
  if (!first) return undefined;
  const at = isPositional(expected) ? positionalReplayStart(existing, first.id, expected) : existing.revisionOfId(first.id);
  if (at < 0) return undefined;
  if (!events.every((e, i) => existing.idAt(at + i) === e.id)) {
    const actual = existing.length === 0 ? 'no_stream' : BigInt(existing.length - 1);
    throw new WrongExpectedRevisionError(stream, expected, actual);
  }
  const lastRevision = at + events.length - 1;
  return { nextExpectedRevision: BigInt(lastRevision), position: existing.positionAt(lastRevision) };
}

type PositionalRevision = Exclude<ExpectedRevision, 'any' | 'exists'>;

/** Whether an append at this expected revision can only be a replay of one at the same revision. */
export const isPositional = (expected: ExpectedRevision): expected is PositionalRevision => expected !== 'any' && expected !== 'exists';

/**
 * Whether an append at this exact expected revision (or "no stream") could be one already made,
 * in a stream of `length` events: only when the stream goes on past the expected revision.
 */
export function mayBeAppendedAlready(length: number, expected: PositionalRevision): boolean {
  return firstRevisionAfter(expected) < length;
}

const firstRevisionAfter = (expected: PositionalRevision): number => (expected === 'no_stream' ? 0 : Number(expected) + 1);

/** The revision where the append would have gone if its first event is there, else -1. */
function positionalReplayStart(existing: StreamView, firstId: string, expected: PositionalRevision): number {
  const start = firstRevisionAfter(expected);
  return start < existing.length && existing.idAt(start) === firstId ? start : -1;
}

/** Throws WrongExpectedRevisionError unless the stream of `length` events satisfies `expected`. */
export function checkExpectedRevision(stream: string, length: number, expected: ExpectedRevision): void {
  // Compared as numbers: runs on every append, and a BigInt per check is an allocation. Exact,
  // since length - 1 < 2^53 and a larger revision converts to a number of at least 2^53.
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && length === 0) ||
    (expected === 'exists' && length > 0) ||
    (typeof expected === 'bigint' && length > 0 && Number(expected) === length - 1);
  if (!ok) throw new WrongExpectedRevisionError(stream, expected, length === 0 ? 'no_stream' : BigInt(length - 1));
}

/** What an append weighs against a store's appendLimitBytes: its events' data and metadata as UTF-8 JSON. */
export function appendBytes(events: readonly EventData[]): number {
  let bytes = 0;
  for (const event of events) {
    const data = event.dataJson ? event.dataJson.byteLength : Buffer.byteLength(JSON.stringify(event.data), 'utf8');
    bytes += data + (event.metadata ? Buffer.byteLength(JSON.stringify(event.metadata), 'utf8') : 0);
  }
  return bytes;
}

/** The append's bytes when they are over the limit (none: no limit), else undefined. */
export function bytesOverLimit(events: readonly EventData[], limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  const bytes = appendBytes(events);
  return bytes > limit ? bytes : undefined;
}

/** Throws AppendTooLargeError when the append is over the limit (none: no limit). */
export function checkAppendSize(stream: string, events: readonly EventData[], limit: number | undefined): void {
  const bytes = bytesOverLimit(events, limit);
  if (bytes !== undefined) throw new AppendTooLargeError(stream, bytes, limit!);
}
