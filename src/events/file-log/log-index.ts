import { IdList } from './id-list.ts';
import { IdTable } from './id-table.ts';
import type { IndexEntries, PersistedIndex } from './lmdb-index.ts';
import type { Location } from './location.ts';

export type { Location } from './location.ts';

/**
 * The index of the log: where each event lives and its id (by global position), each stream's
 * positions (by revision), and each id's position. Reading a stream or resuming from a position
 * is a lookup, never a scan of the log. Positions are dense: the n-th event ever written has
 * position n.
 *
 * Two tiers. Events before `base` are in the persisted index (lmdb-index.ts, on disk, nothing of
 * it on the heap); the tail, from `base` on, is held here, compactly, until the checkpointer has
 * written it there and calls release(). So the heap holds the last few thousand events whatever
 * the log's length, and a start replays only the tail. Without a persisted index (a read-only
 * open of a log that has none) everything is tail, as before the index was persisted.
 */
export class LogIndex {
  private base: number;
  private segmentOf = new Uint32Array(1024);
  private offsetOf = new Float64Array(1024);
  private lengthOf = new Uint32Array(1024);
  private located: number;
  /**
   * Each tail stream's positions held here, from its first revision in the tail on. The arrays
   * are made at their exact length: a stream is usually one paid call of three events, and an
   * array grown by push from empty keeps room for 17.
   */
  private streams = new Map<string, number[]>();
  /** Revisions of a tail stream that are in the persisted index, for the few streams that have any. */
  private persistedLengthOf = new Map<string, number>();
  /** Event id of every tail position (position - base). */
  private idOf = new IdList();
  /** Event id -> position, over the tail. */
  private positionOfId = this.newIdTable();
  /** Positions reserved by accepted appends, durable or not: the next append's first position. */
  nextPosition: number;

  constructor(
    private readonly persisted?: PersistedIndex,
    base = 0,
  ) {
    this.base = base;
    this.located = base;
    this.nextPosition = base;
  }

  /** The first position held here rather than in the persisted index. */
  get tailStart(): number {
    return this.base;
  }

  /**
   * Reserves positions and revisions for an append; the writer locates them once written.
   * Returns the stream's length before: the revision of the first event reserved. A caller that
   * has just looked the length up passes it, sparing a second lookup in the index on disk.
   */
  reserve(stream: string, events: readonly { readonly id: string }[], length = this.streamLength(stream)): number {
    const firstPosition = this.nextPosition;
    const positions = this.streams.get(stream);
    if (positions) {
      for (let i = 0; i < events.length; i++) positions.push(firstPosition + i);
    } else {
      if (length > 0) this.persistedLengthOf.set(stream, length);
      this.streams.set(stream, Array.from({ length: events.length }, (_, i) => firstPosition + i));
    }
    for (let i = 0; i < events.length; i++) {
      const id = events[i]!.id;
      this.idOf.push(id);
      this.positionOfId.set(id, firstPosition + i);
    }
    this.nextPosition += events.length;
    return length;
  }

  /** How many events `stream` has, reserved ones included; 0 for a stream never written. */
  streamLength(stream: string): number {
    const positions = this.streams.get(stream);
    if (positions) return (this.persistedLengthOf.get(stream) ?? 0) + positions.length;
    return this.persisted?.streamLength(stream) ?? 0;
  }

  /** The position of `stream`'s event at `revision`, or -1. */
  positionAt(stream: string, revision: number): number {
    const positions = this.streams.get(stream);
    const persistedLength = positions ? (this.persistedLengthOf.get(stream) ?? 0) : Number.POSITIVE_INFINITY;
    if (revision >= persistedLength) return positions![revision - persistedLength] ?? -1;
    return this.persisted?.positionAt(stream, revision) ?? -1;
  }

  /** positionAt() of revisions first..last, in order: what a read of a stream's window looks up. */
  positionsAt(stream: string, first: number, last: number): number[] {
    const positions = this.streams.get(stream);
    const persistedLength = positions ? (this.persistedLengthOf.get(stream) ?? 0) : Number.POSITIVE_INFINITY;
    const persistedLast = Math.min(last, persistedLength - 1);
    const found = first <= persistedLast ? (this.persisted?.positionsAt(stream, first, persistedLast) ?? new Array<number>(persistedLast - first + 1).fill(-1)) : [];
    for (let revision = Math.max(first, persistedLength); revision <= last; revision++) found.push(positions![revision - persistedLength] ?? -1);
    return found;
  }

  /** The id of the event at a reserved position. */
  idAt(position: number): string | undefined {
    if (position >= this.base) return this.idOf.at(position - this.base);
    return this.persisted?.idAt(position);
  }

  /** Whether `stream` holds an event with this id: when not, an append to it cannot be a replay. */
  mayHoldId(stream: string, id: string): boolean {
    return this.revisionOfId(stream, id) >= 0;
  }

  /**
   * The revision of the event with this id in `stream`, or -1. A stream wholly in the tail (a
   * paid call's stream, whose later appends follow its first within milliseconds) holds no event
   * of the persisted index, so a miss in the tail answers without a lookup on disk.
   */
  revisionOfId(stream: string, id: string): number {
    const positions = this.streams.get(stream);
    const persistedLength = this.persistedLengthOf.get(stream) ?? 0;
    const inTail = positions ? positions.indexOf(this.positionOfId.get(id)) : -1;
    if (inTail >= 0) return persistedLength + inTail;
    if (positions && persistedLength === 0) return -1;
    return this.persisted?.revisionOfId(stream, id) ?? -1;
  }

  /** Records where the event at `position` (the next unlocated one) was written. */
  locate(position: number, location: Location): void {
    this.locateAt(position, location.segment, location.offset, location.length);
  }

  /** locate() without a Location object: the writer calls it for every event it writes. */
  locateAt(position: number, segment: number, offset: number, length: number): void {
    if (position !== this.located) throw new Error(`index out of order: locating ${position}, expected ${this.located}`);
    const at = position - this.base;
    if (at >= this.segmentOf.length) this.grow(2 * this.segmentOf.length);
    this.segmentOf[at] = segment;
    this.offsetOf[at] = offset;
    this.lengthOf[at] = length;
    this.located++;
  }

  location(position: number): Location | undefined {
    if (position < 0 || position >= this.located) return undefined;
    if (position < this.base) {
      return this.persisted?.segmentLocation(position);
    }
    const at = position - this.base;
    return { segment: this.segmentOf[at]!, offset: this.offsetOf[at]!, length: this.lengthOf[at]! };
  }

  /** How many events are written and located (everything below this position is readable). */
  get locatedCount(): number {
    return this.located;
  }

  /** Events held on the heap: the tail not yet checkpointed. */
  get tailLength(): number {
    return this.nextPosition - this.base;
  }

  /** The tail's entries up to `to` (located events only), for the persisted index. */
  entriesUpTo(to: number): IndexEntries {
    if (to > this.located) throw new Error(`cannot persist unlocated events: ${to} > ${this.located}`);
    const locations: Location[] = [];
    for (let p = this.base; p < to; p++) {
      const at = p - this.base;
      locations.push({ segment: this.segmentOf[at]!, offset: this.offsetOf[at]!, length: this.lengthOf[at]! });
    }
    const streams: IndexEntries['streams'] = [];
    for (const [stream, positions] of this.streams) {
      if (positions[0]! >= to) continue;
      let count = 1;
      while (count < positions.length && positions[count]! < to) count++;
      streams.push({ stream, firstRevision: this.persistedLengthOf.get(stream) ?? 0, positions: positions.slice(0, count) });
    }
    // The tail's own list, indexed as `locations` are: release() replaces it rather than changing it.
    return { from: this.base, locations, ids: this.idOf, streams };
  }

  /** Drops the tail before `to`: the persisted index has committed it. */
  release(to: number): void {
    if (to <= this.base) return;
    if (!this.persisted || to > this.located) throw new Error(`cannot release events ${this.base}..${to} (located ${this.located})`);
    const dropped = to - this.base;
    const keep = this.located - to;
    this.moveLocations(dropped, dropped + keep, Math.max(1024, keep * 2));
    const ids = this.idOf;
    const oldBase = this.base;
    this.base = to;
    this.idOf = new IdList();
    this.positionOfId = this.newIdTable();
    for (let p = to; p < this.nextPosition; p++) {
      const id = ids.at(p - oldBase)!;
      this.idOf.push(id);
      this.positionOfId.set(id, p);
    }
    const streams = new Map<string, number[]>();
    for (const [stream, positions] of this.streams) {
      let gone = 0;
      while (gone < positions.length && positions[gone]! < to) gone++;
      const persistedLength = this.persistedLengthOf.get(stream) ?? 0;
      this.persistedLengthOf.delete(stream);
      if (gone === positions.length) continue;
      streams.set(stream, gone === 0 ? positions : positions.slice(gone));
      if (persistedLength + gone > 0) this.persistedLengthOf.set(stream, persistedLength + gone);
    }
    this.streams = streams;
  }

  private newIdTable(): IdTable {
    return new IdTable((position) => this.idOf.at(position - this.base));
  }

  private grow(size: number): void {
    this.moveLocations(0, this.segmentOf.length, size);
  }

  /** New location columns of `size` entries, holding entries [start, end) of the current ones from 0. */
  private moveLocations(start: number, end: number, size: number): void {
    const segmentOf = new Uint32Array(size);
    const offsetOf = new Float64Array(size);
    const lengthOf = new Uint32Array(size);
    segmentOf.set(this.segmentOf.subarray(start, end));
    offsetOf.set(this.offsetOf.subarray(start, end));
    lengthOf.set(this.lengthOf.subarray(start, end));
    [this.segmentOf, this.offsetOf, this.lengthOf] = [segmentOf, offsetOf, lengthOf];
  }
}
