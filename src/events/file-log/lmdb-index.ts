import { hash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Database, RootDatabase } from 'lmdb';
import { openCacheEnvironment, openedAfterMachineCrash, recordCleanClose, type OpenedBy } from './lmdb-boot-guard.ts';
import { TurnWrites } from './lmdb-turn.ts';
import type { IdList } from './id-list.ts';
import type { Location } from './location.ts';
import { uuidText, writeUuidBytes } from '../uuid-bytes.ts';

/**
 * The part of the log's index that is on disk: an LMDB environment beside the segments, holding
 * for every event before the checkpoint where it lives and its id, each stream's positions by
 * revision, and each id's position (from its stream's SCANNED_REVISIONS-th event on). Written
 * only by the index checkpointer, one transaction per checkpoint (entries and the checkpoint
 * that covers them commit together), so what is on disk is always the index of exactly the
 * log's first `checkpoint.events` events. LMDB is memory-mapped and copy-on-write: lookups are
 * a B-tree walk in the page cache (about 1 µs), a crash leaves the last committed checkpoint,
 * and nothing of it is held on the JS heap.
 *
 * Commits are not fsynced (LMDB's NOSYNC): ids and stream names are random keys, so a
 * checkpoint touches a page of each B-tree for nearly every event, and syncing them at every
 * checkpoint wrote about 80 KiB to the disk per paid call at a million events, which the log's
 * own fdatasync then queued behind. Unsynced, the page cache merges those writes. A process
 * crash loses nothing (the pages are in the kernel); only a machine crash can leave the file
 * inconsistent, so the index records the kernel's boot id while open and a clean close, and an
 * index left open by an earlier boot is rebuilt from the log (lmdb-boot-guard.ts; where no boot
 * id is to be had, commits are synced as usual).
 */
export const INDEX_DIRECTORY = 'index';
/**
 * Bumped when the layout below changes: an index of another format is emptied and rebuilt from
 * the log. 3: streams keyed by the SHA-256 of their names, ids in `locations` as idBytes encodes
 * them. 4: the `ids` table holds only events from revision SCANNED_REVISIONS of their stream on.
 */
const FORMAT = 4;
/**
 * A stream's first events are found by id by reading their ids in `locations`, not through the
 * `ids` table: a paid call's stream has three, so none of its ids is a random insert into that
 * table (the table was 37 % of a paid call's pages, and its insert the costliest of an event).
 */
export const SCANNED_REVISIONS = 8;
/** A stream's positions are kept in chunks of this many revisions: one entry for a paid call's stream. */
const CHUNK = 64;

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
  /** The id of each location's event, at the same index. */
  ids: IdList;
  /** Stream, first revision written here, and the positions of its revisions from there on. */
  streams: { stream: string; firstRevision: number; positions: readonly number[] }[];
}

export class PersistedIndex {
  /**
   * Events this process reads from here: the checkpoint it opened with or wrote last. A reader
   * beside a live writer sees the writer's later checkpoints too; it has read those events
   * from the log itself, so lookups ignore what lies beyond.
   */
  private limit = 0;
  /**
   * The streams whose names were hashed lately, and their digests: a stream is asked about
   * several times (a paid call's stream when its saga reads it, when it is appended to and at the
   * next checkpoint, with other calls' lookups in between; each revision of a long stream read
   * back), and a hash costs about as much as the LMDB get it leads to. At most DIGESTS_KEPT;
   * a digest is only ever read (copied into keys), so one buffer serves every lookup.
   */
  private readonly recentDigests = new Map<string, Buffer>();
  /**
   * The first SCANNED_REVISIONS ids of the long streams asked about last, by name: they never
   * change, and reading them from `locations` (and hashing the name to find them) at every append
   * to a long stream took about 8 of the 13 us its replay check cost. At most LEADING_IDS_KEPT.
   */
  private readonly leadingIds = new Map<string, LeadingIds>();

  private constructor(
    private readonly env: RootDatabase,
    private readonly meta: Database<IndexCheckpoint | OpenedBy, string>,
    /** Position -> segment, offset and length of the event, and its id (as idBytes encodes it). */
    private readonly locations: Database<Buffer, number>,
    /** streamKey(stream, chunk) -> the positions of revisions chunk*CHUNK onwards (at most CHUNK). */
    private readonly streams: Database<number[], Buffer>,
    /** Event id (as idBytes encodes it) -> position of the last event with that id, for events from revision SCANNED_REVISIONS on. */
    private readonly ids: Database<number, Buffer>,
    readonly readOnly: boolean,
  ) {}

  /** Opens (creating it when absent) the index in `dir`; read-only opens answer undefined when there is none. */
  static open(dir: string, mode: { readOnly: boolean }): PersistedIndex | undefined {
    if (mode.readOnly && !existsSync(dir)) return undefined;
    const env = openCacheEnvironment(dir, mode);
    return new PersistedIndex(
      env,
      env.openDB<IndexCheckpoint | OpenedBy, string>({ name: 'meta' }),
      env.openDB<Buffer, number>({ name: 'locations', keyEncoding: 'uint32', encoding: 'binary' }),
      env.openDB<number[], Buffer>({ name: 'streams', keyEncoding: 'binary' }),
      env.openDB<number, Buffer>({ name: 'ids', keyEncoding: 'binary' }),
      mode.readOnly,
    );
  }

  /**
   * For the writer, at open: whether the index was left open by an earlier boot of the machine
   * (a machine crash, which unsynced commits may not have survived whole). Then marks it open.
   */
  async openedAfterMachineCrash(): Promise<boolean> {
    return openedAfterMachineCrash(this.meta);
  }

  /** The last committed checkpoint; the empty one for a new index or one of another format. */
  checkpoint(): IndexCheckpoint {
    const stored = this.meta.get('checkpoint') as IndexCheckpoint | undefined;
    const checkpoint = stored && stored.format === FORMAT ? stored : EMPTY_CHECKPOINT;
    this.limit = checkpoint.events;
    return checkpoint;
  }

  location(position: number): (Location & { id: string }) | undefined {
    const value = this.locations.get(position);
    if (!value) return undefined;
    const { segment, offset, length } = locationIn(value);
    return { segment, offset, length, id: idFrom(value, LOCATION_BYTES) };
  }

  /** location() without the id, read from LMDB's reused buffer: every read of an old event asks it. */
  segmentLocation(position: number): Location | undefined {
    const value = this.locations.getBinaryFast(position);
    return value && locationIn(value);
  }

  idAt(position: number): string | undefined {
    const value = this.locations.get(position);
    return value && idFrom(value, LOCATION_BYTES);
  }

  /** Position of the last event written with this id at a revision of SCANNED_REVISIONS or more, or -1. */
  positionOfId(id: string): number {
    const position = this.ids.get(idBytes(id)) ?? -1;
    return position < this.limit ? position : -1;
  }

  positionAt(stream: string, revision: number): number {
    return this.positionIn(this.digestOf(stream), revision);
  }

  /**
   * The positions of revisions first..last of `stream` (-1 where there is none), one read per
   * chunk of CHUNK revisions: read one revision at a time, a long stream's read decoded every
   * chunk CHUNK times over.
   */
  positionsAt(stream: string, first: number, last: number): number[] {
    const digest = this.digestOf(stream);
    const positions: number[] = [];
    for (let revision = first; revision <= last; ) {
      const chunk = Math.floor(revision / CHUNK);
      const stored = this.streams.get(streamKey(digest, chunk));
      const end = Math.min(last, chunk * CHUNK + CHUNK - 1);
      for (; revision <= end; revision++) {
        const position = stored?.[revision % CHUNK] ?? -1;
        positions.push(position < this.limit ? position : -1);
      }
    }
    return positions;
  }

  /** positionAt() of the stream with this digest. */
  private positionIn(digest: Buffer, revision: number): number {
    const position = this.streams.get(streamKey(digest, Math.floor(revision / CHUNK)))?.[revision % CHUNK] ?? -1;
    return position < this.limit ? position : -1;
  }

  /** How many events of `stream` are indexed here. */
  streamLength(stream: string): number {
    return this.lengthOf(this.digestOf(stream));
  }

  /**
   * The revision of an event of `stream` with this id (the last, where the stream has two), or
   * -1. Every append to a stream with events here asks it (is this append a replay?), nearly
   * always for an id the stream does not hold. A short stream's ids are read from `locations`; a
   * long stream's first ids are kept in memory after the first read, and its later ones are in
   * the ids table: one get answers.
   */
  revisionOfId(stream: string, id: string): number {
    const wanted = idBytes(id);
    let leading = this.leadingIds.get(stream);
    if (!leading) {
      const first = this.streams.get(streamKey(this.digestOf(stream), 0));
      if (first === undefined || first[0]! >= this.limit) return -1;
      const count = countBelow(first, this.limit);
      if (count < SCANNED_REVISIONS) {
        for (let revision = count - 1; revision >= 0; revision--) {
          const value = this.locations.getBinaryFast(first[revision]!);
          if (value && value.length === LOCATION_BYTES + wanted.length && wanted.equals(value.subarray(LOCATION_BYTES))) return revision;
        }
        return -1;
      }
      leading = this.keepLeadingIds(stream, first);
    }
    const later = this.revisionInIdsTable(stream, wanted);
    return later >= 0 ? later : leading.lastIndexOf(wanted);
  }

  /** The revision, from SCANNED_REVISIONS on, of the stream's event found under this id in the ids table, or -1. */
  private revisionInIdsTable(stream: string, wanted: Buffer): number {
    const position = this.ids.get(wanted) ?? -1;
    if (position < 0 || position >= this.limit) return -1;
    const digest = this.digestOf(stream);
    // The table holds the last event anywhere with this id: it is this stream's only if one of its revisions is there.
    let low = SCANNED_REVISIONS;
    let high = this.lengthOf(digest) - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = this.positionIn(digest, mid);
      if (at === position) return mid;
      if (at < position) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** Reads and keeps the ids of the first SCANNED_REVISIONS events of a stream that has that many here. */
  private keepLeadingIds(stream: string, first: readonly number[]): LeadingIds {
    // Each read is copied at once: getBinaryFast answers in a buffer the next read reuses.
    const leading = new LeadingIds(first.slice(0, SCANNED_REVISIONS).map((position) => Buffer.from(this.locations.getBinaryFast(position)?.subarray(LOCATION_BYTES) ?? [])));
    if (this.leadingIds.size >= LEADING_IDS_KEPT) this.leadingIds.delete(this.leadingIds.keys().next().value!);
    this.leadingIds.set(stream, leading);
    return leading;
  }

  private digestOf(stream: string): Buffer {
    let digest = this.recentDigests.get(stream);
    if (!digest) {
      if (this.recentDigests.size >= DIGESTS_KEPT) this.recentDigests.clear();
      digest = streamDigest(stream);
      this.recentDigests.set(stream, digest);
    }
    return digest;
  }

  /** How many events of the stream with this digest are indexed here. */
  private lengthOf(digest: Buffer): number {
    // Most lookups are of a stream never written (a paid call's first append): one get answers.
    const first = this.streams.get(streamKey(digest, 0));
    if (first === undefined || first[0]! >= this.limit) return 0;
    if (first.length < CHUNK) return countBelow(first, this.limit);
    for (const { key, value } of this.streams.getRange({ start: streamKey(digest, MAX_CHUNK), end: streamKey(digest, 0), reverse: true })) {
      const count = countBelow(value, this.limit);
      if (count > 0) return chunkOf(key) * CHUNK + count;
    }
    return countBelow(first, this.limit);
  }

  /**
   * Adds `entries` and the checkpoint covering them, in one transaction; resolves once committed.
   * The puts are queued in one turn of the event loop, which lmdb-js commits as one transaction
   * on its own thread: the B-tree work stays off the event loop (a transaction callback would
   * run every insert on it). Checkpoints are written one at a time, so what a chunk read here
   * returns is the last checkpoint's.
   */
  async write(entries: IndexEntries, next: IndexCheckpoint): Promise<void> {
    // Which of these events are at a revision the ids table holds.
    const idIndexed = new Uint8Array(entries.locations.length);
    for (const { firstRevision, positions } of entries.streams)
      for (let k = Math.max(0, SCANNED_REVISIONS - firstRevision); k < positions.length; k++) idIndexed[positions[k]! - entries.from] = 1;
    const turn = new TurnWrites();
    for (let i = 0; i < entries.locations.length; i++) {
      const value = locationValue(entries.locations[i]!, entries.ids, i);
      const position = entries.from + i;
      turn.add(this.locations.put(position, value));
      if (idIndexed[i]) turn.add(this.ids.put(value.subarray(LOCATION_BYTES), position));
    }
    for (const { stream, firstRevision, positions } of entries.streams) {
      const digest = this.digestOf(stream);
      for (let k = 0; k < positions.length; ) {
        const revision = firstRevision + k;
        const chunk = Math.floor(revision / CHUNK);
        const into = revision % CHUNK;
        const take = Math.min(CHUNK - into, positions.length - k);
        // A chunk begun by an earlier checkpoint is extended.
        const key = streamKey(digest, chunk);
        const before = into > 0 ? (this.streams.get(key) ?? []).slice(0, into) : [];
        turn.add(this.streams.put(key, [...before, ...positions.slice(k, k + take)]));
        k += take;
      }
    }
    // Last in the turn, so committed with (never before) the entries it covers.
    turn.add(this.meta.put('checkpoint', next));
    await turn.committed();
    this.limit = next.events;
  }

  /**
   * Whether any entry is stored, checkpoint or not. An index whose checkpoint covers nothing
   * still holds entries when it is of another format (its checkpoint reads as empty) or when a
   * clear was cut short; a new index must not be built over them.
   */
  holdsEntries(): boolean {
    const tables: Array<Database<Buffer, number> | Database<number[], Buffer> | Database<number, Buffer>> = [this.locations, this.streams, this.ids];
    return tables.some((table) => table.getKeysCount({ limit: 1 }) > 0);
  }

  /** Forgets everything: the index is rebuilt from the log. */
  async clear(): Promise<void> {
    // The checkpoint first: a crash half way leaves an index that says it holds nothing.
    this.limit = 0;
    this.leadingIds.clear();
    await this.meta.clearAsync();
    await Promise.all([this.locations.clearAsync(), this.streams.clearAsync(), this.ids.clearAsync()]);
  }

  /** Closes; the writer first syncs everything and records the clean close (rejecting when it cannot, closed all the same). */
  async close(): Promise<void> {
    try {
      if (!this.readOnly) await recordCleanClose(this.env, this.meta);
    } finally {
      await this.env.close();
    }
  }
}

/** How many of a chunk's positions (ascending) are below `limit`. */
function countBelow(positions: readonly number[], limit: number): number {
  let count = positions.length;
  while (count > 0 && positions[count - 1]! >= limit) count--;
  return count;
}

/** A location's stored value: segment, offset and length, then the event's id as idBytes() stores it. */
function locationValue({ segment, offset, length }: Location, ids: IdList, i: number): Buffer {
  // A UUID's bytes are copied from the list as they are (no text made and parsed again).
  const uuid = ids.uuidBytesAt(i);
  const id = uuid ? undefined : idBytes(ids.at(i)!);
  const value = Buffer.allocUnsafe(LOCATION_BYTES + (id ? id.length : 1 + uuid!.length));
  value.writeUInt32LE(segment, 0);
  value.writeDoubleLE(offset, 4);
  value.writeUInt32LE(length, 12);
  if (id) {
    id.copy(value, LOCATION_BYTES);
  } else {
    value[LOCATION_BYTES] = 0;
    value.set(uuid!, LOCATION_BYTES + 1);
  }
  return value;
}

/** An id as stored: a lowercase UUID (every id the service derives) as 0 and its 16 bytes; any other id as 1 and its UTF-8. */
function idBytes(id: string): Buffer {
  const uuid = Buffer.allocUnsafe(17);
  if (writeUuidBytes(id, uuid, 1)) {
    uuid[0] = 0;
    return uuid;
  }
  const text = Buffer.allocUnsafe(1 + Buffer.byteLength(id));
  text[0] = 1;
  text.write(id, 1, 'utf8');
  return text;
}

/** The id idBytes stored at `start` of `value` (to its end). */
function idFrom(value: Buffer, start: number): string {
  return value[start] === 0 ? uuidText(value, start + 1) : value.toString('utf8', start + 1);
}

/** Segment, offset and length head a `locations` value; the event's id follows them. */
const LOCATION_BYTES = 16;

/** The segment, offset and length at the head of a `locations` value. */
function locationIn(value: Buffer): Location {
  return { segment: value.readUInt32LE(0), offset: value.readDoubleLE(4), length: value.readUInt32LE(12) };
}

/**
 * Streams are keyed by the SHA-256 of their names, not the names: a payment stream's name is
 * 117 characters, and its entry took 242 bytes of pages where the digest's takes about 100.
 * Two streams share entries only if their names' SHA-256 collide.
 */
function streamDigest(stream: string): Buffer {
  return hash('sha256', stream, 'buffer');
}

const MAX_CHUNK = 0xffffffff;

/** A stream's chunk's key: its digest, then the chunk number (big-endian, so chunks sort in order). */
function streamKey(digest: Buffer, chunk: number): Buffer {
  const key = Buffer.allocUnsafe(36);
  digest.copy(key, 0, 0, 32);
  key.writeUInt32BE(chunk, 32);
  return key;
}

const chunkOf = (key: Buffer): number => key.readUInt32BE(32);

/** Long streams whose first ids are kept: about 300 bytes each, with the name. */
const LEADING_IDS_KEPT = 1024;
/** Stream digests kept by name (about 150 bytes each with a payment stream's name). */
const DIGESTS_KEPT = 4096;

/** A stream's first ids as stored (idBytes), in one buffer, each behind its length. */
class LeadingIds {
  private readonly bytes: Buffer;

  constructor(ids: readonly Uint8Array[]) {
    this.bytes = Buffer.allocUnsafe(ids.reduce((total, id) => total + 4 + id.length, 0));
    let at = 0;
    for (const id of ids) {
      at = this.bytes.writeUInt32LE(id.length, at);
      this.bytes.set(id, at);
      at += id.length;
    }
  }

  /** The revision of the last of these ids equal to `id`, or -1. */
  lastIndexOf(id: Buffer): number {
    let found = -1;
    for (let at = 0, revision = 0; at < this.bytes.length; revision++) {
      const length = this.bytes.readUInt32LE(at);
      at += 4;
      // The last byte first, in JavaScript (an id as stored is never empty): ids differ there nearly always, and compare() is a native call.
      if (length === id.length && this.bytes[at + length - 1] === id[length - 1] && id.compare(this.bytes, at, at + length) === 0) found = revision;
      at += length;
    }
    return found;
  }
}
