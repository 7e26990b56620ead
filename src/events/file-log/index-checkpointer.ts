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
  /**
   * How many events the writer checkpoint has written as acknowledged. No index checkpoint goes
   * beyond it: a start distrusts (and rebuilds) an index ahead of the writer checkpoint.
   */
  acknowledged(): number;
  /** A checkpoint is written once this many durable events wait for one. Default 1,024. */
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
/** How soon to look again when the writer checkpoint has not yet written what is waiting. */
const ACKNOWLEDGEMENT_WAIT_MS = 20;

/**
 * Moves the index's tail to the persisted index as the log grows: after every `everyEvents`
 * durable events (or `maxDelayMs`), in one LMDB transaction per checkpoint, one at a time, at a
 * batch boundary (a start resumes reading the log there). Only durable events are written, so
 * the index never runs ahead of the log; a crash loses at most the checkpoints not yet
 * committed, whose events the next start reads again from the log.
 */
export class IndexCheckpointer {
  /** Ends of durable batches not yet covered by a checkpoint, oldest first. */
  private readonly boundaries: BatchBoundary[] = [];
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly everyEvents: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: IndexCheckpointerOptions) {
    this.everyEvents = options.everyEvents ?? 1_024;
    this.maxDelayMs = options.maxDelayMs ?? 1_000;
  }

  /** Called for every durable batch, in log order. */
  durable(boundary: BatchBoundary): void {
    if (this.stopped) return;
    this.boundaries.push(boundary);
    if (this.writing) return;
    if (boundary.events - this.options.index.tailStart >= this.everyEvents) this.writeNext();
    else this.timer ??= setTimeout(() => this.writeNext(), this.maxDelayMs).unref();
  }

  /** Writes everything durable and acknowledged (at close, so the next start replays nothing). */
  async flush(): Promise<void> {
    await this.idle();
    while (this.boundaries.length > 0 && !this.stopped && this.acknowledgedReady()) {
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

  /** Whether the oldest waiting batch is covered by the writer checkpoint's last write. */
  private acknowledgedReady(): boolean {
    return this.boundaries.length > 0 && this.boundaries[0]!.events <= this.options.acknowledged();
  }

  private writeNext(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.stopped || this.boundaries.length === 0) return;
    if (!this.acknowledgedReady()) {
      this.timer = setTimeout(() => this.writeNext(), ACKNOWLEDGEMENT_WAIT_MS).unref();
      return;
    }
    this.writing = this.writeCheckpoint().then(
      () => {
        this.writing = undefined;
        const waiting = (this.boundaries.at(-1)?.events ?? 0) - this.options.index.tailStart;
        if (waiting >= this.everyEvents) setImmediate(() => this.writeNext());
        else if (waiting > 0) this.timer ??= setTimeout(() => this.writeNext(), this.maxDelayMs).unref();
      },
      (err: Error) => {
        this.writing = undefined;
        this.options.log.error({ error: err.message, heldEvents: this.options.index.tailLength }, 'event index checkpoint failed: the index tail stays in memory; trying again');
        this.timer ??= setTimeout(() => this.writeNext(), RETRY_MS).unref();
      },
    );
  }

  /** Writes the largest run of waiting, acknowledged batches that fits one checkpoint (at least one batch). */
  private async writeCheckpoint(): Promise<void> {
    const start = this.options.index.tailStart;
    const acknowledged = this.options.acknowledged();
    let take = 1;
    while (take < this.boundaries.length && this.boundaries[take]!.events - start <= MAX_EVENTS_PER_CHECKPOINT && this.boundaries[take]!.events <= acknowledged) take++;
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
    ...EMPTY_CHECKPOINT,
    events: to,
    segment: boundary.segment,
    offset: boundary.offset,
    segmentFirstPositions: segments.slice(0, boundary.segment + 1).map((s) => s.firstPosition),
    lastId: index.idAt(to - 1) ?? null,
  });
  index.release(to);
}
