import { EMPTY_CHECKPOINT, type PersistedIndex } from './lmdb-index.ts';
import type { LogIndex } from './log-index.ts';
import type { EventLogger } from './logger.ts';
import type { SegmentFile } from './segment.ts';

/** Where a durable batch ends: the events up to it, and the segment and offset the next batch starts at. */
export interface BatchBoundary {
  events: number;
  segment: number;
  offset: number;
}

export interface IndexCheckpointerOptions {
  index: LogIndex;
  persisted: PersistedIndex;
  segments: readonly SegmentFile[];
  log: EventLogger;
  /** A checkpoint is written once this many acknowledged events wait for one. Default 1,024. */
  everyEvents?: number;
  /** ... or once the oldest has waited this long. Default 1 s. */
  maxDelayMs?: number;
}

/**
 * One checkpoint's transaction writes at most this many events: its puts run on the event loop
 * (a few µs an event), and a longer stall would show in the latency of the calls around it.
 */
const MAX_EVENTS_PER_CHECKPOINT = 2_048;
/** After a failed checkpoint (a full disk), the next try waits this long; the tail stays in memory meanwhile. */
const RETRY_MS = 5_000;

/**
 * Moves the index's tail to the persisted index as the log grows: after every `everyEvents`
 * events (or `maxDelayMs`), in one LMDB transaction per checkpoint, one at a time, at a batch
 * boundary (a start resumes reading the log there). A batch is written only once the writer
 * checkpoint has recorded it as acknowledged (`acknowledge`, called after each of its writes):
 * a start distrusts, and rebuilds, an index ahead of the writer checkpoint. So the index never
 * runs ahead of the log; a crash loses at most the checkpoints not yet committed, whose events
 * the next start reads again from the log.
 */
export class IndexCheckpointer {
  /** Ends of durable batches not yet covered by a checkpoint, oldest first. */
  private readonly boundaries: BatchBoundary[] = [];
  /** Events the writer checkpoint has written as acknowledged. */
  private acknowledged = 0;
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly everyEvents: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: IndexCheckpointerOptions) {
    this.everyEvents = options.everyEvents ?? 1_024;
    this.maxDelayMs = options.maxDelayMs ?? 1_000;
  }

  /** Called for every durable batch, in log order; written once acknowledged. */
  durable(boundary: BatchBoundary): void {
    if (!this.stopped) this.boundaries.push(boundary);
  }

  /** Called after every write of the writer checkpoint, with the count it wrote. */
  acknowledge(events: number): void {
    this.acknowledged = Math.max(this.acknowledged, events);
    this.schedule();
  }

  /** Writes everything acknowledged (at close, after the writer checkpoint's last write, so the next start replays nothing). */
  async flush(): Promise<void> {
    await this.idle();
    while (this.acknowledgedBatches() > 0 && !this.stopped) {
      this.writing = this.writeCheckpoint();
      await this.writing;
      this.writing = undefined;
    }
  }

  /** Stops taking batches and waits for the checkpoint in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }

  private async idle(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
  }

  /** How many of the oldest waiting batches the writer checkpoint has acknowledged. */
  private acknowledgedBatches(): number {
    let count = 0;
    while (count < this.boundaries.length && this.boundaries[count]!.events <= this.acknowledged) count++;
    return count;
  }

  /** Writes now when enough acknowledged events wait, or within maxDelayMs when some do. */
  private schedule(): void {
    if (this.writing || this.stopped) return;
    const ready = this.acknowledgedBatches();
    if (ready === 0) return;
    if (this.boundaries[ready - 1]!.events - this.options.index.tailStart >= this.everyEvents) this.writeNext();
    else this.timer ??= setTimeout(() => this.writeNext(), this.maxDelayMs).unref();
  }

  private writeNext(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.stopped || this.acknowledgedBatches() === 0) return;
    this.writing = this.writeCheckpoint().then(
      () => {
        this.writing = undefined;
        this.schedule();
      },
      (err: Error) => {
        this.writing = undefined;
        this.options.log.error({ error: err.message, heldEvents: this.options.index.tailLength }, 'event index checkpoint failed: the index tail stays in memory; trying again');
        this.timer ??= setTimeout(() => this.writeNext(), RETRY_MS).unref();
      },
    );
  }

  /** Writes the largest run of acknowledged batches that fits one checkpoint (at least one batch). */
  private async writeCheckpoint(): Promise<void> {
    const start = this.options.index.tailStart;
    const ready = this.acknowledgedBatches();
    let take = 1;
    while (take < ready && this.boundaries[take]!.events - start <= MAX_EVENTS_PER_CHECKPOINT) take++;
    const target = this.boundaries[take - 1]!;
    await persistIndexUpTo(this.options.index, this.options.persisted, this.options.segments, target);
    this.boundaries.splice(0, take);
  }
}

/** Writes the index's tail up to `boundary` to the persisted index, with the checkpoint there, then drops it from the heap. */
export async function persistIndexUpTo(index: LogIndex, persisted: PersistedIndex, segments: readonly SegmentFile[], boundary: BatchBoundary): Promise<void> {
  const to = boundary.events;
  if (to <= index.tailStart) return;
  await persisted.write(index.entriesUpTo(to), {
    format: EMPTY_CHECKPOINT.format,
    events: to,
    segment: boundary.segment,
    offset: boundary.offset,
    segmentFirstPositions: segments.slice(0, boundary.segment + 1).map((s) => s.firstPosition),
    lastId: index.idAt(to - 1) ?? null,
  });
  index.release(to);
}
