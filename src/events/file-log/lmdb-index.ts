import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Location } from './location.ts';

/**
 * The part of the log's index that is on disk: an LMDB environment beside the segments, holding
 * for every event before the checkpoint where it lives and its id, each stream's positions by
 * revision, and each id's position. Written only by the index checkpointer, one transaction per
 * checkpoint (entries and the checkpoint that covers them commit together), so what is on disk
 * is always the index of exactly the log's first `checkpoint.events` events. LMDB is
 * memory-mapped and copy-on-write: lookups are a B-tree walk in the page cache (about 1 µs), a
 * crash leaves the last committed checkpoint, and nothing of it is held on the JS heap.
 */
export const INDEX_DIRECTORY = 'index';
/** Bumped when the layout below changes: an index of another format is rebuilt from the log. */
const FORMAT = 1;

export interface IndexCheckpoint {
  format: number;
  /** Events indexed: positions 0 .. events-1. */
  events: number;
  /** Where the batch after the last indexed one starts: segment number and byte offset. */
  segment: number;
  offset: number;
  /** First position of every segment up to `segment`: a missing or renamed file shows at open. */
  segmentFirstPositions: number[];
  /** Id of the last indexed event, compared with the log at open (a log swapped under its index). */
  lastId: string | null;
}

export const EMPTY_CHECKPOINT: IndexCheckpoint = { format: FORMAT, events: 0, segment: 0, offset: 0, segmentFirstPositions: [0], lastId: null };

/** What one checkpoint adds: positions `from` .. checkpoint.events-1. */
export interface IndexEntries {
  from: number;
  locations: Location[];
  ids: string[];
  /** Stream, first revision written here, and the positions of its revisions from there on. */
  streams: { stream: string; firstRevision: number; positions: readonly number[] }[];
}

/** LMDB keys are at most 1,978 bytes; a stream name that long is keyed by its SHA-256. */
const MAX_STREAM_KEY_BYTES = 1024;

export class PersistedIndex {
  /**
   * Events this process reads from here: the checkpoint it opened with or wrote last. A reader
   * beside a live writer sees the writer's later checkpoints too; it has read those events
   * from the log itself, so lookups ignore what lies beyond.
   */
  private limit = 0;

  private constructor(
    private readonly env: RootDatabase,
    private readonly meta: Database<IndexCheckpoint, string>,
    private readonly locations: Database<Buffer, number>,
    private readonly streams: Database<number, [string, number]>,
    private readonly ids: Database<number, string>,
    readonly readOnly: boolean,
  ) {}

  /** Opens (creating it when absent) the index in `dir`; read-only opens answer undefined when there is none. */
  static open(dir: string, mode: { readOnly: boolean }): PersistedIndex | undefined {
    if (mode.readOnly && !existsSync(dir)) return undefined;
    const env = open({ path: dir, compression: false, maxDbs: 4, readOnly: mode.readOnly, cache: false });
    return new PersistedIndex(
      env,
      env.openDB<IndexCheckpoint, string>({ name: 'meta' }),
      env.openDB<Buffer, number>({ name: 'locations', keyEncoding: 'uint32', encoding: 'binary' }),
      env.openDB<number, [string, number]>({ name: 'streams' }),
      env.openDB<number, string>({ name: 'ids' }),
      mode.readOnly,
    );
  }

  /** The last committed checkpoint; the empty one for a new index or one of another format. */
  checkpoint(): IndexCheckpoint {
    const stored = this.meta.get('checkpoint');
    const checkpoint = stored && stored.format === FORMAT ? stored : EMPTY_CHECKPOINT;
    this.limit = checkpoint.events;
    return checkpoint;
  }

  location(position: number): (Location & { id: string }) | undefined {
    const value = this.locations.get(position);
    if (!value) return undefined;
    return { segment: value.readUInt32LE(0), offset: value.readDoubleLE(4), length: value.readUInt32LE(12), id: value.toString('utf8', 16) };
  }

  idAt(position: number): string | undefined {
    return this.locations.get(position)?.toString('utf8', 16);
  }

  /** Position of the last event written with this id, or -1. */
  positionOfId(id: string): number {
    const position = this.ids.get(id) ?? -1;
    return position < this.limit ? position : -1;
  }

  positionAt(stream: string, revision: number): number {
    const position = this.streams.get([streamKey(stream), revision]) ?? -1;
    return position < this.limit ? position : -1;
  }

  /** How many events of `stream` are indexed here. */
  streamLength(stream: string): number {
    const key = streamKey(stream);
    // Most lookups are of a stream never written (a paid call's first append): one get answers.
    const first = this.streams.get([key, 0]);
    if (first === undefined || first >= this.limit) return 0;
    for (const { key: last, value } of this.streams.getRange({ start: [key, Infinity], end: [key, -1], reverse: true })) if (value < this.limit) return last[1] + 1;
    return 0;
  }

  /** Adds `entries` and the checkpoint covering them, in one transaction: resolves once committed to disk. */
  async write(entries: IndexEntries, next: IndexCheckpoint): Promise<void> {
    await this.env.transaction(() => {
      for (let i = 0; i < entries.locations.length; i++) {
        const { segment, offset, length } = entries.locations[i]!;
        const id = entries.ids[i]!;
        const value = Buffer.allocUnsafe(16 + Buffer.byteLength(id));
        value.writeUInt32LE(segment, 0);
        value.writeDoubleLE(offset, 4);
        value.writeUInt32LE(length, 12);
        value.write(id, 16, 'utf8');
        const position = entries.from + i;
        void this.locations.put(position, value);
        void this.ids.put(id, position);
      }
      for (const { stream, firstRevision, positions } of entries.streams) {
        const key = streamKey(stream);
        for (let k = 0; k < positions.length; k++) void this.streams.put([key, firstRevision + k], positions[k]!);
      }
      void this.meta.put('checkpoint', next);
    });
    this.limit = next.events;
  }

  /** Forgets everything: the index is rebuilt from the log. */
  async clear(): Promise<void> {
    // The checkpoint first: a crash half way leaves an index that says it holds nothing.
    this.limit = 0;
    await this.meta.clearAsync();
    await Promise.all([this.locations.clearAsync(), this.streams.clearAsync(), this.ids.clearAsync()]);
  }

  async close(): Promise<void> {
    await this.env.close();
  }
}

function streamKey(stream: string): string {
  if (stream.length * 3 <= MAX_STREAM_KEY_BYTES || Buffer.byteLength(stream) <= MAX_STREAM_KEY_BYTES) return stream;
  // NUL never starts a stream name the service writes; the hash keeps long names apart.
  return `\u0000sha256:${createHash('sha256').update(stream).digest('hex')}`;
}
