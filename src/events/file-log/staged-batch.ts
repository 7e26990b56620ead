import { BATCH_HEADER_BYTES, FRAME_HEADER_BYTES, MAX_RECORD_BYTES, writeBatchHeader, writeFrameHeader } from './framing.ts';

/** Room a fresh batch starts with: 64 one-KiB records, the size of a full batch under load. */
const INITIAL_CAPACITY = 64 * 1024 + BATCH_HEADER_BYTES;

/** Where a batch stood before an append was staged in it: what a failed append rolls back to. */
export interface StageMark {
  end: number;
  events: number;
}

/**
 * One group commit being assembled. Each append encodes its frames straight into one buffer,
 * behind room left for the batch header, so a batch is written with no per-event buffers and no
 * concatenation copy. Every append of the batch is acknowledged by one shared promise, settled
 * after the fdatasync that covers the whole batch.
 */
export class StagedBatch {
  bytes: Buffer;
  /** End of the staged frames in `bytes`. */
  end = BATCH_HEADER_BYTES;
  /** Frame length of each staged event, in position order: the index needs them once written. */
  readonly frameLengths: number[] = [];
  readonly durable: Promise<void>;
  private settle!: { resolve(): void; reject(error: Error): void };

  constructor(
    /** Position of the first event of the batch. */
    readonly firstPosition: number,
    recycled?: Buffer,
  ) {
    this.bytes = recycled ?? Buffer.allocUnsafe(INITIAL_CAPACITY);
    this.durable = new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Every batch has appends awaiting it; this only keeps a rejection that races them from
    // being reported as unhandled.
    this.durable.catch(() => {});
  }

  get eventCount(): number {
    return this.frameLengths.length;
  }

  /** Bytes of the event frames (the batch header excluded). */
  get recordBytes(): number {
    return this.end - BATCH_HEADER_BYTES;
  }

  mark(): StageMark {
    return { end: this.end, events: this.frameLengths.length };
  }

  /** Encodes one event record (UTF-8 JSON `payload`) as a checksummed frame at the end of the batch. */
  stage(payload: string, eventId: string): void {
    // UTF-8 needs at least one byte per UTF-16 unit: a longer string is too large for sure.
    if (payload.length > MAX_RECORD_BYTES) throw tooLarge(eventId, Buffer.byteLength(payload, 'utf8'));
    const at = this.end;
    const room = this.bytes.length - at - FRAME_HEADER_BYTES;
    // At most 3 bytes per UTF-16 unit; only count exactly when the cheap bound does not fit.
    if (room < payload.length * 3) {
      const needed = Buffer.byteLength(payload, 'utf8');
      if (room < needed) this.grow(at + FRAME_HEADER_BYTES + needed);
    }
    const length = this.bytes.write(payload, at + FRAME_HEADER_BYTES, 'utf8');
    if (length > MAX_RECORD_BYTES) throw tooLarge(eventId, length);
    writeFrameHeader(this.bytes, at, length);
    this.end = at + FRAME_HEADER_BYTES + length;
    this.frameLengths.push(FRAME_HEADER_BYTES + length);
  }

  /** Drops everything staged after `mark`. */
  rollback(mark: StageMark): void {
    this.end = mark.end;
    this.frameLengths.length = mark.events;
  }

  /** Moves the frames staged after `mark` to `target` (an append that overflowed this batch). */
  moveTo(target: StagedBatch, mark: StageMark): void {
    const bytes = this.end - mark.end;
    if (target.bytes.length - target.end < bytes) target.grow(target.end + bytes);
    this.bytes.copy(target.bytes, target.end, mark.end, this.end);
    target.end += bytes;
    for (let i = mark.events; i < this.frameLengths.length; i++) target.frameLengths.push(this.frameLengths[i]!);
    this.rollback(mark);
  }

  /** Fills in the batch header; returns the bytes to write: the header, then every frame. */
  seal(): Buffer {
    writeBatchHeader(this.bytes, 0, this.recordBytes);
    return this.bytes.subarray(0, this.end);
  }

  resolve(): void {
    this.settle.resolve();
  }

  reject(error: Error): void {
    this.settle.reject(error);
  }

  private grow(minimum: number): void {
    const bytes = Buffer.allocUnsafe(Math.max(minimum, this.bytes.length * 2));
    this.bytes.copy(bytes, 0, 0, this.end);
    this.bytes = bytes;
  }
}

function tooLarge(eventId: string, bytes: number): RangeError {
  return new RangeError(`event ${eventId} is ${bytes} bytes; the limit is ${MAX_RECORD_BYTES}`);
}
