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
  /** The revision of the event with this id in this stream, or -1. */
  revisionOfId(id: string): number;
}

/**
 * EventStoreDB's idempotency rule, shared by the embedded adapters: when every event of an
 * append is already in the stream, in order, right where the expected revision puts it, the
 * append is the same append seen twice and succeeds without writing.
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
      revisionOfId: (id) => existing.findIndex((e) => e.id === id),
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
  const at = existing.revisionOfId(first.id);
  if (at < 0) return undefined;
  const all = events.every((e, i) => existing.idAt(at + i) === e.id);
  const expectedStart =
    expected === 'any' || expected === 'exists' ? at : expected === 'no_stream' ? 0 : Number(expected) + 1;
  if (!all || expectedStart !== at) {
    const actual = existing.length === 0 ? 'no_stream' : BigInt(existing.length - 1);
    throw new WrongExpectedRevisionError(stream, expected, actual);
  }
  const lastRevision = at + events.length - 1;
  return { nextExpectedRevision: BigInt(lastRevision), position: existing.positionAt(lastRevision) };
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
