import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { EventStoreUnavailableError, type RecordedEvent } from '../port.ts';
import { encodeBatchHeader } from './framing.ts';
import type { LogIndex } from './log-index.ts';
import { createSegment } from './recovery.ts';
import { SEGMENT_HEADER_BYTES, type SegmentFile } from './segment.ts';

export interface PendingAppend {
  events: RecordedEvent[];
  frames: Buffer[];
  bytes: number;
  resolve(): void;
  reject(error: Error): void;
}

export interface GroupCommitOptions {
  dir: string;
  index: LogIndex;
  segments: SegmentFile[];
  tail: FileHandle;
  tailBytes: number;
  maxBatchBytes: number;
  maxSegmentBytes: number;
  /** Called once per batch, after its fdatasync, with its events in position order. */
  onDurable(events: RecordedEvent[]): void;
  /** Called once, when a write or sync fails and the log stops accepting appends. */
  onFailed(error: Error): void;
}

/**
 * Group commit: appends queue up while the previous batch is being written and synced, then all
 * of them go out in one write and share one fdatasync (on libuv's thread pool, never on the event
 * loop). An append is acknowledged only after the sync that covers it. The next batch is written
 * only after the previous one is synced, which is what lets recovery tell a torn tail (only ever
 * the last batch) from corruption.
 */
export class GroupCommitWriter {
  private readonly queue: PendingAppend[] = [];
  private running: Promise<void> = Promise.resolve();
  /** Set and cleared synchronously, so an append queued as the loop ends is never stranded. */
  private active = false;
  private failure: Error | undefined;
  private tail: FileHandle;
  private tailBytes: number;
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

  enqueue(append: PendingAppend): void {
    if (this.failure) {
      append.reject(this.failure);
      return;
    }
    this.queue.push(append);
    if (!this.active) {
      this.active = true;
      this.running = this.run();
    }
  }

  /** Resolves when everything queued so far is durable (or has failed). */
  async drain(): Promise<void> {
    while (this.active) await this.running;
  }

  async closeTail(): Promise<void> {
    await this.tail.close();
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
      if (this.queue.length === 0) return;
      const batch = this.takeBatch();
      try {
        await this.writeBatch(batch);
      } catch (err) {
        // After a failed write or fsync the state of the file is unknown (the page cache may have
        // dropped the data): stop accepting writes instead of acknowledging what may be lost.
        this.failure = new EventStoreUnavailableError(`event log write failed, the log is read-only until restart: ${(err as Error).message}`, { cause: err });
        for (const append of [...batch, ...this.queue.splice(0)]) append.reject(this.failure);
        this.options.onFailed(this.failure);
        return;
      }
      for (const append of batch) append.resolve();
      this.options.onDurable(batch.flatMap((a) => a.events));
    }
  }

  private takeBatch(): PendingAppend[] {
    const batch: PendingAppend[] = [];
    let bytes = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (batch.length > 0 && bytes + next.bytes > this.options.maxBatchBytes) break;
      batch.push(this.queue.shift()!);
      bytes += next.bytes;
    }
    return batch;
  }

  private async writeBatch(batch: PendingAppend[]): Promise<void> {
    const recordBytes = batch.reduce((n, a) => n + a.bytes, 0);
    const header = encodeBatchHeader(recordBytes);
    const first = batch[0]!.events[0]!;
    if (this.tailBytes > SEGMENT_HEADER_BYTES && this.tailBytes + header.length + recordBytes > this.options.maxSegmentBytes)
      await this.rotate(Number(first.position));
    const segmentNumber = this.options.segments.length - 1;
    const buffer = Buffer.concat([header, ...batch.flatMap((a) => a.frames)], header.length + recordBytes);
    let offset = this.tailBytes + header.length;
    for (const append of batch) {
      for (const [i, event] of append.events.entries()) {
        const length = append.frames[i]!.length;
        this.options.index.locate(Number(event.position), { segment: segmentNumber, offset, length });
        offset += length;
      }
    }
    let written = 0;
    while (written < buffer.length) {
      const { bytesWritten } = await this.tail.write(buffer, written, buffer.length - written, this.tailBytes + written);
      written += bytesWritten;
    }
    await this.tail.datasync();
    this.tailBytes += buffer.length;
    this.durableCount = Number(batch.at(-1)!.events.at(-1)!.position) + 1;
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
