import { uuidText, writeUuidBytes } from '../uuid-bytes.ts';

/**
 * The event id of every position of the log, in the least memory that gives each id back exactly.
 * Nearly every id is a lowercase RFC 4122 UUID (event-ids.ts derives them), kept here as its 16
 * bytes in one growing buffer: about 16 bytes an event instead of a 36-character string (some 56
 * bytes of heap plus an 8-byte slot). Any other id (a client's own, or an uppercase UUID, which
 * must come back with its case) is kept as it was given, beside.
 */
export class IdList {
  private bytes = new Uint8Array(16 * 1024);
  /** Ids that are not canonical UUIDs, by position; their 16 bytes stay unused. */
  private readonly others = new Map<number, string>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(id: string): void {
    const position = this.count++;
    if (16 * this.count > this.bytes.length) this.grow();
    if (!writeUuidBytes(id, this.bytes, 16 * position)) this.others.set(position, id);
  }

  at(position: number): string | undefined {
    if (position < 0 || position >= this.count) return undefined;
    const other = this.others.get(position);
    if (other !== undefined) return other;
    return uuidText(this.bytes, 16 * position);
  }

  /**
   * The 16 bytes of the id at `position` when it is a canonical UUID (a view of the list's own
   * bytes, valid while nothing is pushed), undefined for any other id: what the index on disk
   * stores, with no text made to be parsed again.
   */
  uuidBytesAt(position: number): Uint8Array | undefined {
    if (position < 0 || position >= this.count || this.others.has(position)) return undefined;
    return this.bytes.subarray(16 * position, 16 * position + 16);
  }

  private grow(): void {
    const bigger = new Uint8Array(this.bytes.length * 2);
    bigger.set(this.bytes);
    this.bytes = bigger;
  }
}

