import { setImmediate } from 'node:timers/promises';
import type { RecordedEvent, StateShelf } from '../events/port.ts';
import { sha256Hex } from '../signing/hash.ts';
import type { JsonValue } from '../signing/rfc8785.ts';

/**
 * How a decider's state is written to a snapshot and read back (Decider.snapshot). A snapshot is
 * used only by the same kind and version: bump `version` whenever the state's shape, or what
 * `evolve` makes of any event, changes, or a state folded by the old code would be taken for the
 * new one's. Each codec's test pins its encoding of a fixed history with its version, and fails
 * on a change of the first without the second.
 */
export interface StateCodec<S> {
  /** The decider's states on the shelf: one kind per decider. */
  kind: string;
  version: number;
  encode(state: S): JsonValue;
  /** The state `encode` was given; throws on anything `encode` would not have written. */
  decode(encoded: JsonValue): S;
}

/** The event a snapshot's state was folded up to, as the log recorded it: checked before the snapshot is used. */
export interface FoldedUpTo {
  revision: bigint;
  id: string;
  position: bigint;
  recordedAt: number;
}

export interface Snapshot<S> {
  state: S;
  upTo: FoldedUpTo;
}

const FORMAT = 'state-snapshot/1';

/**
 * A snapshot is written when the events folded since the last one (or since the stream's start)
 * are at least this many and at least an eighth of the stream: a stream's state is then folded
 * after a restart, or when it was not kept in memory, from a snapshot plus at most about an eighth
 * of its events, while writing snapshots costs a stream's growth about eight encodings of its
 * state in all, whatever its length.
 */
export const SNAPSHOT_MIN_EVENTS = 1024;
const GROWTH_BETWEEN_SNAPSHOTS = 8n;

/** A snapshot's text may hold this many characters at most; a larger state is folded from its stream. */
export const SNAPSHOT_MAX_CHARS = 256 * 2 ** 20;

export function snapshotDue(revision: bigint, shelved: bigint | undefined): boolean {
  const since = revision - (shelved ?? -1n);
  return since >= BigInt(SNAPSHOT_MIN_EVENTS) && since * GROWTH_BETWEEN_SNAPSHOTS >= revision + 1n;
}

const nameOf = (codec: StateCodec<unknown>, stream: string): string => `${codec.kind}\n${stream}`;

/**
 * The snapshot of `stream`'s state on the shelf, if there is one this codec wrote and its text is
 * whole (its SHA-256 holds). Whether the log still holds the event it was folded up to is the
 * caller's to check (matchesEvent), with the first read of the stream after it. One of another
 * version, or torn, is dropped; a shelf that fails is a shelf without snapshots.
 */
export async function shelvedSnapshot<S>(shelf: StateShelf, codec: StateCodec<S>, stream: string): Promise<Snapshot<S> | undefined> {
  const name = nameOf(codec, stream);
  let text: string | undefined;
  try {
    text = await shelf.get(name);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  const snapshot = parsedSnapshot(text, codec, stream);
  if (!snapshot) await dropSnapshot(shelf, codec, stream);
  return snapshot;
}

export async function dropSnapshot(shelf: StateShelf, codec: StateCodec<unknown>, stream: string): Promise<void> {
  await shelf.drop(nameOf(codec, stream)).catch(() => undefined);
}

interface SnapshotHead {
  format: string;
  kind: string;
  version: number;
  stream: string;
  upTo: { revision: string; id: string; position: string; recordedAt: number };
  sha256: string;
}

function parsedSnapshot<S>(text: string, codec: StateCodec<S>, stream: string): Snapshot<S> | undefined {
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  try {
    const head = JSON.parse(text.slice(0, newline)) as SnapshotHead;
    const body = text.slice(newline + 1);
    if (head.format !== FORMAT || head.kind !== codec.kind || head.version !== codec.version || head.stream !== stream) return undefined;
    if (sha256Hex(body) !== head.sha256) return undefined;
    const upTo = { revision: BigInt(head.upTo.revision), id: head.upTo.id, position: BigInt(head.upTo.position), recordedAt: head.upTo.recordedAt };
    return { state: codec.decode(JSON.parse(body) as JsonValue), upTo };
  } catch {
    return undefined;
  }
}

/** Whether `event` is the one a snapshot was folded up to: the same revision, id, position and time of recording (a log restored from a backup and written again may hold another event of the same id there). */
export function matchesEvent(upTo: FoldedUpTo, event: RecordedEvent | undefined): boolean {
  return event !== undefined && event.revision === upTo.revision && event.id === upTo.id && event.position === upTo.position && event.recordedAt === upTo.recordedAt;
}

const writing = new WeakMap<StateShelf, Map<string, Promise<void>>>();

/**
 * Writes a snapshot of `state`, folded up to `upTo`, after the current call has gone on (the
 * state is persistent: it does not change meanwhile). One write a stream at a time: a snapshot
 * due while its stream's last is still being written is skipped, and the next one due is written.
 * A write that fails costs only the speed of a later fold.
 */
export function shelveSnapshot<S>(shelf: StateShelf, codec: StateCodec<S>, stream: string, state: S, upTo: RecordedEvent): void {
  const name = nameOf(codec, stream);
  let writes = writing.get(shelf);
  if (!writes) writing.set(shelf, (writes = new Map()));
  if (writes.has(name)) return;
  const written = setImmediate()
    .then(() => {
      const text = snapshotText(codec, stream, state, upTo);
      return text === undefined ? undefined : shelf.put(name, text);
    })
    .catch(() => undefined)
    .finally(() => writes.delete(name));
  writes.set(name, written);
}

function snapshotText<S>(codec: StateCodec<S>, stream: string, state: S, upTo: RecordedEvent): string | undefined {
  const body = JSON.stringify(codec.encode(state));
  if (body.length > SNAPSHOT_MAX_CHARS) return undefined;
  const head: SnapshotHead = {
    format: FORMAT,
    kind: codec.kind,
    version: codec.version,
    stream,
    upTo: { revision: upTo.revision.toString(), id: upTo.id, position: upTo.position.toString(), recordedAt: upTo.recordedAt },
    sha256: sha256Hex(body),
  };
  return `${JSON.stringify(head)}\n${body}`;
}

/** Waits until the snapshots being written to `shelf` are written (a test reading the shelf, a store closing). */
export async function snapshotsWritten(shelf: StateShelf): Promise<void> {
  await Promise.all(writing.get(shelf)?.values() ?? []);
}
