import { IdList } from './id-list.ts';
import { IdTable } from './id-table.ts';

export interface Location {
  segment: number;
  offset: number;
  length: number;
}

/**
 * The in-memory index of the log: where each event lives and its id (by global position), and
 * each stream's positions (by revision). Reading a stream or resuming from a position is a lookup,
 * never a scan of the log. Positions are dense: the n-th event ever written has position n.
 */
export class LogIndex {
  private segmentOf = new Uint32Array(1024);
  private offsetOf = new Float64Array(1024);
  private lengthOf = new Uint32Array(1024);
  private located = 0;
  /**
   * Each stream's positions, by revision (an event's id is idAt(position)). The arrays are the
   * map's values themselves, made at their exact length: a stream is usually one paid call of
   * three events, and an array grown by push from empty keeps room for 17 (about 200 bytes of
   * slack per stream, the largest per-call cost of the index).
   */
  private readonly streams = new Map<string, number[]>();
  /** Event id of every reserved position: the one list of ids (streams refer to positions). */
  private readonly idOf = new IdList();
  /** Event id -> position, for the idempotency check of appends. */
  private readonly positionOfId = new IdTable((position) => this.idOf.at(position));
  /** Positions reserved by accepted appends, durable or not: the next append's first position. */
  nextPosition = 0;

  /**
   * Reserves positions and revisions for an append; the writer locates them once written.
   * Returns the stream's length before: the revision of the first event reserved.
   */
  reserve(stream: string, events: readonly { readonly id: string }[]): number {
    const firstPosition = this.nextPosition;
    const positions = this.streams.get(stream);
    const before = positions ? positions.length : 0;
    if (positions) for (let i = 0; i < events.length; i++) positions.push(firstPosition + i);
    else this.streams.set(stream, Array.from({ length: events.length }, (_, i) => firstPosition + i));
    for (let i = 0; i < events.length; i++) {
      const id = events[i]!.id;
      this.idOf.push(id);
      this.positionOfId.set(id, firstPosition + i);
    }
    this.nextPosition += events.length;
    return before;
  }

  /** The positions of a stream's events, by revision; undefined for a stream never written. */
  positionsOf(stream: string): readonly number[] | undefined {
    return this.streams.get(stream);
  }

  get streamCount(): number {
    return this.streams.size;
  }

  /** The id of the event at a reserved position. */
  idAt(position: number): string | undefined {
    return this.idOf.at(position);
  }

  /** Whether any stream has an event with this id: when none has, an append cannot be a replay. */
  hasId(id: string): boolean {
    return this.positionOfId.get(id) >= 0;
  }

  /** The revision of the event with this id in `stream`, or -1. */
  revisionOfId(stream: string, id: string): number {
    const position = this.positionOfId.get(id);
    const positions = this.streams.get(stream);
    if (position < 0 || !positions) return -1;
    let low = 0;
    let high = positions.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const p = positions[mid]!;
      if (p === position) return mid;
      if (p < position) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** Records where the event at `position` (the next unlocated one) was written. */
  locate(position: number, location: Location): void {
    this.locateAt(position, location.segment, location.offset, location.length);
  }

  /** locate() without a Location object: the writer calls it for every event it writes. */
  locateAt(position: number, segment: number, offset: number, length: number): void {
    if (position !== this.located) throw new Error(`index out of order: locating ${position}, expected ${this.located}`);
    if (position >= this.segmentOf.length) this.grow();
    this.segmentOf[position] = segment;
    this.offsetOf[position] = offset;
    this.lengthOf[position] = length;
    this.located++;
  }

  location(position: number): Location | undefined {
    if (position < 0 || position >= this.located) return undefined;
    return { segment: this.segmentOf[position]!, offset: this.offsetOf[position]!, length: this.lengthOf[position]! };
  }

  // Allocation-free accessors for sequential replay (a Location object per event shows in profiles).
  segmentAt(position: number): number {
    return this.segmentOf[position]!;
  }

  offsetAt(position: number): number {
    return this.offsetOf[position]!;
  }

  lengthAt(position: number): number {
    return this.lengthOf[position]!;
  }

  /** How many events are written and located (everything below this position is readable). */
  get locatedCount(): number {
    return this.located;
  }

  private grow(): void {
    const size = this.segmentOf.length * 2;
    const seg = new Uint32Array(size);
    seg.set(this.segmentOf);
    const off = new Float64Array(size);
    off.set(this.offsetOf);
    const len = new Uint32Array(size);
    len.set(this.lengthOf);
    this.segmentOf = seg;
    this.offsetOf = off;
    this.lengthOf = len;
  }
}
