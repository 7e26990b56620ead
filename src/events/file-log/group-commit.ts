import type { FileHandle } from 'node:fs/promises';
import { writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { AppendTooLargeError, EventStoreUnavailableError, type EventData } from '../port.ts';
import { RecordTooLargeError } from './errors.ts';
import { PIPELINE_DEPTH, writeRecordPayload } from './framing.ts';
import type { LogIndex } from './log-index.ts';
import { createSegment } from './recovery.ts';
import { SEGMENT_HEADER_BYTES, type SegmentFile } from './segment.ts';
import { StagedBatch } from './staged-batch.ts';

/** Batches up to this size are written without the thread pool (see write). */
const SYNC_WRITE_MAX_BYTES = 256 * 1024;
/** A batch with this many bytes of records is written as soon as a sync is free, before the turn ends. */
const EARLY_WRITE_BYTES = 32 * 1024;

export interface GroupCommitOptions {
  dir: string;
  index: LogIndex;
  segments: SegmentFile[];
  tail: FileHandle;
  tailBytes: number;
  maxBatchBytes: number;
  maxSegmentBytes: number;
  /**
   * Called once per batch, in log order, when it and every batch before it are synced; the
   * batch's bytes are reused once it returns.
   */
  onDurable(batch: StagedBatch): void;
  /** Called once, when a write or sync fails and the log stops accepting appends. */
  onFailed(error: Error): void;
}

interface InFlight {
  batch: StagedBatch;
  synced: boolean;
}

/**
 * Pipelined group commit. Appends are encoded straight into the batch being assembled (see
 * StagedBatch); a batch goes out in one write and is then fdatasync'ed on libuv's thread pool,
 * never on the event loop. An append is acknowledged only after the sync of its batch and of
 * every batch before it.
 *
 * Up to PIPELINE_DEPTH batches are written and syncing at once. With one, callers that all waited
 * on the same sync then stage their next appends while the disk is idle, and the disk syncs
 * while the core is idle: per-append CPU and sync time add up. With two, the callers one sync
 * acknowledged stage the next batch while the other batch syncs, and it is written as soon as it
 * holds EARLY_WRITE_BYTES or the turn of the event loop ends, so under load the writers settle
 * into two groups that take turns. Recovery knows which batches a crash can tear (framing.ts):
 * a batch is marked pipelined when written while the one before it syncs, and no batch is
 * written while one older than its predecessor is unsynced.
 */
export class GroupCommitWriter {
  /** Batches waiting to be written, oldest first; the last one still takes appends. */
  private readonly staged: StagedBatch[] = [];
  /** Batches written and awaiting their sync (or an earlier batch's), oldest first. */
  private readonly inFlight: InFlight[] = [];
  private pumpScheduled = false;
  private rotating = false;
  private failure: Error | undefined;
  private tail: FileHandle;
  /** Where the next batch goes in the tail segment (after the batches in flight). */
  private tailBytes: number;
  /** Buffers of acknowledged batches, reused by later ones (a fresh 64 KiB per batch is GC churn). */
  private readonly spares: Buffer[] = [];
  /** Events below this position are on disk and synced. */
  durableCount: number;

  constructor(private readonly options: GroupCommitOptions) {
    this.tail = options.tail;
    this.tailBytes = options.tailBytes;
    this.durableCount = options.index.nextPosition;
  }

  /** Set once a write or sync fails: after that this writer accepts nothing more (the store opens a new one once it can). */
  get failed(): Error | undefined {
    return this.failure;
  }

  /**
   * Stages one append, the records of `events` at positions from `firstPosition` and revisions
   * of `stream` from `firstRevision` on, all or nothing: throws (staging nothing) when a record
   * is too large or not JSON, or the log has failed. The returned promise settles once the batch
   * holding the append, and every batch before it, is synced.
   */
  append(firstPosition: number, stream: string, firstRevision: number, recordedAt: number, events: readonly EventData[]): Promise<void> {
    if (this.failure) throw this.failure;
    let batch = this.staged.at(-1);
    if (!batch) {
      batch = new StagedBatch(firstPosition, this.spares.pop());
      this.staged.push(batch);
    }
    const mark = batch.mark();
    try {
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        batch.beginRecord(e.id, e.type);
        writeRecordPayload(batch, firstPosition + i, stream, firstRevision + i, e.id, e.type, recordedAt, e.dataJson ?? e.data, e.metadata);
        batch.endRecord();
      }
    } catch (err) {
      batch.rollback(mark);
      // As a store with a limit per append refuses it: the saga answers 413 when nothing was charged.
      if (err instanceof RecordTooLargeError) throw new AppendTooLargeError(stream, err.bytes, err.limit);
      throw err;
    }
    // An append never spans batches; one that takes a non-empty batch past the bound starts the
    // next one (a single larger append still goes alone).
    if (mark.events > 0 && batch.recordBytes > this.options.maxBatchBytes) {
      const next = new StagedBatch(firstPosition, this.spares.pop());
      batch.moveTo(next, mark);
      this.staged.push(next);
      batch = next;
    }
    const { durable } = batch;
    // Written now if full enough and a sync is free (the write is synchronous; its failure fails
    // the batch, not this call); otherwise at the end of the turn.
    if (batch.recordBytes >= EARLY_WRITE_BYTES) this.pump(EARLY_WRITE_BYTES);
    this.schedulePump();
    return durable;
  }

  /** Resolves when everything appended so far is durable (or has failed). */
  async drain(): Promise<void> {
    for (;;) {
      const last = this.staged.findLast((batch) => batch.eventCount > 0) ?? this.inFlight.at(-1)?.batch;
      if (!last || this.failure) return;
      await last.durable.catch(() => {});
    }
  }

  async closeTail(): Promise<void> {
    await this.tail.close();
  }

  /** Writes what is staged at the end of this turn of the event loop. */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    // One turn first: appends made in this turn, and the next appends of callers whose previous
    // one was just acknowledged, join the batch instead of forming a batch of one ahead of it.
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump(0);
    });
  }

  /** Writes staged batches holding at least `minBytes` of records, oldest first, while a sync is free. */
  private pump(minBytes: number): void {
    while (!this.failure && !this.rotating && this.inFlight.length < PIPELINE_DEPTH) {
      const batch = this.staged[0];
      if (!batch || batch.eventCount === 0 || batch.recordBytes < minBytes) return;
      if (this.tailBytes > SEGMENT_HEADER_BYTES && this.tailBytes + batch.end > this.options.maxSegmentBytes) {
        // A new segment only once everything written to the old one is synced: a batch is
        // never pipelined across segments, and only the last segment can have a torn tail.
        if (this.inFlight.length === 0) void this.rotate(batch.firstPosition);
        return;
      }
      this.staged.shift();
      this.write(batch);
    }
  }

  /** Writes a batch at the end of the tail segment, then syncs it (on the thread pool). */
  private write(batch: StagedBatch): void {
    const buffer = batch.seal(this.inFlight.length > 0);
    const at = this.tailBytes;
    this.tailBytes += buffer.length;
    const segmentNumber = this.options.segments.length - 1;
    const { index } = this.options;
    const lengths = batch.frameLengths;
    let offset = at + (buffer.length - batch.recordBytes);
    for (let i = 0; i < lengths.length; i++) {
      const length = lengths[i]!;
      index.locateAt(batch.firstPosition + i, segmentNumber, offset, length);
      offset += length;
    }
    const entry: InFlight = { batch, synced: false };
    this.inFlight.push(entry);
    let written = 0;
    try {
      // A batch of the usual size is copied into the page cache synchronously (tens of µs):
      // handing it to the thread pool costs two thread wake-ups, which took longer than the copy
      // and delayed the fdatasync behind it. Large batches still go to the pool.
      while (written < buffer.length && buffer.length <= SYNC_WRITE_MAX_BYTES) written += writeSync(this.tail.fd, buffer, written, buffer.length - written, at + written);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    finishAndSync(this.tail, buffer, at, written).then(
      () => {
        entry.synced = true;
        this.acknowledge();
      },
      (err: Error) => this.fail(err),
    );
  }

  /** Acknowledges synced batches in log order: a batch synced ahead of an earlier one waits for it. */
  private acknowledge(): void {
    while (this.inFlight[0]?.synced) {
      const { batch } = this.inFlight.shift()!;
      this.durableCount = batch.firstPosition + batch.eventCount;
      batch.resolve();
      this.options.onDurable(batch);
      this.spares.push(batch.bytes);
    }
    // A batch that filled up while every sync was busy goes now; a smaller one at the end of the turn.
    this.pump(EARLY_WRITE_BYTES);
    this.schedulePump();
  }

  private fail(err: Error): void {
    if (this.failure) return;
    // After a failed write or fsync the state of the file is unknown (the page cache may have
    // dropped the data): stop accepting writes instead of acknowledging what may be lost.
    this.failure = new EventStoreUnavailableError(`event log write failed; appends are refused until the log recovers by itself: ${err.message}`, { cause: err });
    for (const { batch } of this.inFlight.splice(0)) batch.reject(this.failure);
    for (const batch of this.staged.splice(0)) batch.reject(this.failure);
    this.options.onFailed(this.failure);
  }

  /** Starts the next segment (nothing is written meanwhile), then writes what waited for it. */
  private async rotate(firstPosition: number): Promise<void> {
    this.rotating = true;
    try {
      const segment = await createSegment(this.options.dir, firstPosition);
      const handle = await open(segment.path, 'r+');
      await this.tail.close();
      this.options.segments.push(segment);
      this.tail = handle;
      this.tailBytes = SEGMENT_HEADER_BYTES;
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    this.rotating = false;
    this.pump(0);
  }
}

/** Writes what the synchronous write left of `buffer` (a large batch) through the thread pool, then fdatasyncs. */
async function finishAndSync(tail: FileHandle, buffer: Buffer, at: number, written: number): Promise<void> {
  while (written < buffer.length) {
    const { bytesWritten } = await tail.write(buffer, written, buffer.length - written, at + written);
    written += bytesWritten;
  }
  await tail.datasync();
}
