import { createHash } from 'node:crypto';
import { setImmediate, setTimeout } from 'node:timers/promises';
import type { RecordedEvent, StateShelf } from '../events/port.ts';
import type { JsonValue } from '../signing/rfc8785.ts';

/**
 * How a decider's state is written to a snapshot and read back (Decider.snapshot). A snapshot is
 * used only by the same kind and version: bump `version` whenever the state's shape, or what
 * `evolve` makes of any event, changes, or a state folded by the old code would be taken for the
 * new one's. Each codec's test pins its encoding of a fixed history with its version, and fails
 * on a change of the first without the second.
 *
 * A state is written as a sequence of JSON pieces, one a line, and read back piece by piece, so
 * that a large state (an agent of 57,000 leases: about 13 MB) is written and read a few hundred
 * kilobytes at a time, other requests running between, instead of holding the event loop for the
 * whole of it. `encode` must therefore yield its pieces as it goes, not build them all first.
 */
export interface StateCodec<S> {
  /** The decider's states on the shelf: one kind per decider. */
  kind: string;
  version: number;
  encode(state: S): Iterable<JsonValue>;
  /** A reader of the pieces `encode` wrote, in order. */
  decoder(): StateDecoder<S>;
}

export interface StateDecoder<S> {
  /** Throws on a piece `encode` would not have written there. */
  add(piece: JsonValue): void;
  /** The state, once every piece was added; throws when it is not whole. */
  finish(): S;
}

/**
 * The decoder of a state written as one head piece (its own fields) followed by pieces of one
 * list: `readHead` reads the first piece, `addPiece` each later one onto the list, and `whole`
 * puts the two together. `what` names the state in the error of a snapshot without its head.
 */
export function headThenList<H, L, S>(
  what: string,
  readHead: (piece: JsonValue) => H,
  list: L,
  addPiece: (list: L, piece: JsonValue) => L,
  whole: (head: H, list: L) => S,
): StateDecoder<S> {
  let head: { value: H } | undefined;
  return {
    add(piece) {
      if (head) list = addPiece(list, piece);
      else head = { value: readHead(piece) };
    },
    finish() {
      if (!head) throw new Error(`a ${what} snapshot without its head`);
      return whole(head.value, list);
    },
  };
}

/** `items` in arrays of `size`: how a codec yields a long list in pieces. */
export function* inChunks<T>(items: Iterable<T>, size = 1_000): Generator<T[]> {
  let chunk: T[] = [];
  for (const item of items) {
    chunk.push(item);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
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
  /** The length of its text. */
  chars: number;
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
  const snapshot = await parsedSnapshot(text, codec, stream);
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
  /** Of the lines after the head, as written. */
  sha256: string;
  pieces: number;
}

/** Characters of a snapshot's lines written or read between two turns of the event loop (a few milliseconds' work). */
const CHARS_A_TURN = 256 * 1024;
/**
 * A snapshot is written in the background, after the call that folded it: between its turns it
 * waits this long, so that the calls meanwhile (2.6 ms each on a kept agent) are held by one of
 * its turns at most, not by one between each of their own steps.
 */
const WRITE_PAUSE_MS = 10;

async function parsedSnapshot<S>(text: string, codec: StateCodec<S>, stream: string): Promise<Snapshot<S> | undefined> {
  try {
    let at = text.indexOf('\n') + 1;
    if (at === 0) return undefined;
    const head = JSON.parse(text.slice(0, at)) as SnapshotHead;
    if (head.format !== FORMAT || head.kind !== codec.kind || head.version !== codec.version || head.stream !== stream) return undefined;
    const decoder = codec.decoder();
    const hash = createHash('sha256');
    let pieces = 0;
    for (let turn = at; at < text.length; pieces++) {
      const end = text.indexOf('\n', at) + 1;
      if (end === 0) return undefined;
      const line = text.slice(at, end);
      hash.update(line);
      decoder.add(JSON.parse(line) as JsonValue);
      at = end;
      if (at - turn >= CHARS_A_TURN) {
        turn = at;
        await setImmediate();
      }
    }
    if (hash.digest('hex') !== head.sha256 || pieces !== head.pieces) return undefined;
    const upTo = { revision: BigInt(head.upTo.revision), id: head.upTo.id, position: BigInt(head.upTo.position), recordedAt: head.upTo.recordedAt };
    return { state: decoder.finish(), upTo, chars: text.length };
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
 * A write that fails costs only the speed of a later fold; a codec that throws is reported to the
 * shelf (StateShelf.encodeFailed), and the stream goes on without a snapshot.
 */
export function shelveSnapshot<S>(shelf: StateShelf, codec: StateCodec<S>, stream: string, state: S, upTo: RecordedEvent): void {
  const name = nameOf(codec, stream);
  let writes = writing.get(shelf);
  if (!writes) writing.set(shelf, (writes = new Map()));
  if (writes.has(name)) return;
  const written = setImmediate()
    .then(() => snapshotText(codec, stream, state, upTo))
    .then(
      // A put that fails is the shelf's to report (a full disk): it costs only the speed of a later fold.
      (text) => (text === undefined ? undefined : shelf.put(name, text).catch(() => undefined)),
      (err: unknown) => shelf.encodeFailed?.(name, err instanceof Error ? err : new Error(String(err))),
    )
    .catch(() => undefined)
    .finally(() => writes.delete(name));
  writes.set(name, written);
}

async function snapshotText<S>(codec: StateCodec<S>, stream: string, state: S, upTo: RecordedEvent): Promise<string | undefined> {
  const lines: string[] = [];
  const hash = createHash('sha256');
  let chars = 0;
  let turn = 0;
  for (const piece of codec.encode(state)) {
    const line = `${JSON.stringify(piece)}\n`;
    hash.update(line);
    lines.push(line);
    chars += line.length;
    if (chars > SNAPSHOT_MAX_CHARS) return undefined;
    if (chars - turn >= CHARS_A_TURN) {
      turn = chars;
      await setTimeout(WRITE_PAUSE_MS);
    }
  }
  const head: SnapshotHead = {
    format: FORMAT,
    kind: codec.kind,
    version: codec.version,
    stream,
    upTo: { revision: upTo.revision.toString(), id: upTo.id, position: upTo.position.toString(), recordedAt: upTo.recordedAt },
    sha256: hash.digest('hex'),
    pieces: lines.length,
  };
  return `${JSON.stringify(head)}\n${lines.join('')}`;
}

/** Waits until the snapshots being written to `shelf` are written (a test or a benchmark reading the shelf; a closing store waits for its puts itself). */
export async function snapshotsWritten(shelf: StateShelf): Promise<void> {
  await Promise.all(writing.get(shelf)?.values() ?? []);
}
