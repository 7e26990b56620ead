import type { FileHandle } from 'node:fs/promises';
import { writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { EventStoreUnavailableError, type EventData } from '../port.ts';
import { writeRecordPayload } from './framing.ts';
import type { LogIndex } from './log-index.ts';
import { createSegment } from './recovery.ts';
import { SEGMENT_HEADER_BYTES, type SegmentFile } from './segment.ts';
import { StagedBatch } from './staged-batch.ts';

/** Batches up to this size are written without the thread pool (see writeBatch). */
const SYNC_WRITE_MAX_BYTES = 256 * 1024;

export interface GroupCommitOptions {
  dir: string;
  index: LogIndex;
  segments: SegmentFile[];
  tail: FileHandle;
  tailBytes: number;
  maxBatchBytes: number;
  maxSegmentBytes: number;
  /** Called once per batch, after its fdatasync; the batch's bytes are reused once it returns. */
  onDurable(batch: StagedBatch): void;
  /** Called once, when a write or sync fails and the log stops accepting appends. */
  onFailed(error: Error): void;
}

/**
 * Group commit: appends queue up while the previous batch is being written and synced, then all
 * of them go out in one write and share one fdatasync (on libuv's thread pool, never on the event
 * loop). An append is acknowledged only after the sync that covers it. The next batch is written
 * only after the previous one is synced, which is what lets recovery tell a torn tail (only ever
 * the last batch) from corruption.
 *
 * Appends are encoded straight into the batch being assembled (see StagedBatch): under load the
 * per-append CPU work, not the disk, is what bounds the rate, since the next batch can only
 * start once the callers of the previous one have been answered.
 */
export class GroupCommitWriter {
  /** Batches waiting to be written, oldest first; the last one still takes appends. */
  private readonly queue: StagedBatch[] = [];
  private running: Promise<void> = Promise.resolve();
  /** Set and cleared synchronously, so an append queued as the loop ends is never stranded. */
  private active = false;
  private failure: Error | undefined;
  private tail: FileHandle;
  private tailBytes: number;
  /** The buffer of the last written batch, reused by a later one (a fresh 64 KiB per batch is GC churn). */
  private spare: Buffer | undefined;
  /** Events below this position are on disk and synced. */
  durableCount: number;

  constructor(private readonly options: GroupCommitOptions) {
    this.tail = options.tail;
    this.tailBytes = options.tailBytes;
    this.durableCount = options.index.nextPosition;
  }

  /** Set once a write or sync fails: after that the log accepts nothing more. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /**
   * Stages one append, the records of `events` at positions from `firstPosition` and revisions
   * of `stream` from `firstRevision` on, all or nothing: throws (staging nothing) when a record
   * is too large or not JSON, or the log has failed. The returned promise settles once the batch
   * holding the append is synced.
   */
  append(firstPosition: number, stream: string, firstRevision: number, recordedAt: number, events: readonly EventData[]): Promise<void> {
    if (this.failure) throw this.failure;
    let batch = this.queue.at(-1);
    if (!batch) {
      batch = new StagedBatch(firstPosition, this.takeSpare());
      this.queue.push(batch);
    }
    const mark = batch.mark();
    try {
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        batch.beginRecord(e.id, e.type);
        writeRecordPayload(batch, firstPosition + i, stream, firstRevision + i, e.id, e.type, recordedAt, e.data, e.metadata);
        batch.endRecord();
      }
    } catch (err) {
      batch.rollback(mark);
      throw err;
    }
    // An append never spans batches; one that takes a non-empty batch past the bound starts the
    // next one (a single larger append still goes alone).
    if (mark.events > 0 && batch.recordBytes > this.options.maxBatchBytes) {
      const next = new StagedBatch(firstPosition, this.takeSpare());
      batch.moveTo(next, mark);
      this.queue.push(next);
      batch = next;
    }
    if (!this.active) {
      this.active = true;
      this.running = this.run();
    }
    return batch.durable;
  }

  /** Resolves when everything queued so far is durable (or has failed). */
  async drain(): Promise<void> {
    while (this.active) await this.running;
  }

  async closeTail(): Promise<void> {
    await this.tail.close();
  }

  private takeSpare(): Buffer | undefined {
    const spare = this.spare;
    this.spare = undefined;
    return spare;
  }

  private async run(): Promise<void> {
    try {
      await this.writeQueued();
    } finally {
      this.active = false;
    }
  }

  private async writeQueued(): Promise<void> {
    for (;;) {
      // Yield one turn of the event loop first: appends made in this turn, and the next appends
      // of callers whose previous one was just acknowledged, join this batch instead of forming
      // a batch of one ahead of it.
      await new Promise<void>((resolve) => setImmediate(resolve));
      // Taking the batch off the queue closes it: appends from now on start the next one.
      const batch = this.queue.shift();
      if (!batch) return;
      try {
        await this.writeBatch(batch);
      } catch (err) {
        // After a failed write or fsync the state of the file is unknown (the page cache may have
        // dropped the data): stop accepting writes instead of acknowledging what may be lost.
        this.failure = new EventStoreUnavailableError(`event log write failed, the log is read-only until restart: ${(err as Error).message}`, { cause: err });
        for (const failed of [batch, ...this.queue.splice(0)]) failed.reject(this.failure);
        this.options.onFailed(this.failure);
        return;
      }
      batch.resolve();
      this.options.onDurable(batch);
      this.spare = batch.bytes;
    }
  }

  private async writeBatch(batch: StagedBatch): Promise<void> {
    const buffer = batch.seal();
    if (this.tailBytes > SEGMENT_HEADER_BYTES && this.tailBytes + buffer.length > this.options.maxSegmentBytes)
      await this.rotate(batch.firstPosition);
    const segmentNumber = this.options.segments.length - 1;
    const { index } = this.options;
    const lengths = batch.frameLengths;
    let offset = this.tailBytes + (buffer.length - batch.recordBytes);
    for (let i = 0; i < lengths.length; i++) {
      const length = lengths[i]!;
      index.locateAt(batch.firstPosition + i, segmentNumber, offset, length);
      offset += length;
    }
    let written = 0;
    // A batch of the usual size is copied into the page cache synchronously (tens of µs): handing
    // it to the thread pool costs two thread wake-ups, which took longer than the copy and delayed
    // the fdatasync behind it. Large batches still go to the pool so the loop is never held long.
    while (written < buffer.length && buffer.length <= SYNC_WRITE_MAX_BYTES)
      written += writeSync(this.tail.fd, buffer, written, buffer.length - written, this.tailBytes + written);
    while (written < buffer.length) {
      const { bytesWritten } = await this.tail.write(buffer, written, buffer.length - written, this.tailBytes + written);
      written += bytesWritten;
    }
    await this.tail.datasync();
    this.tailBytes += buffer.length;
    this.durableCount = batch.firstPosition + batch.eventCount;
  }

  private async rotate(firstPosition: number): Promise<void> {
    const segment = await createSegment(this.options.dir, firstPosition);
    const next = await open(segment.path, 'r+');
    await this.tail.close();
    this.options.segments.push(segment);
    this.tail = next;
    this.tailBytes = SEGMENT_HEADER_BYTES;
  }
}
