import { open, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeRecordHead, type RecordHead } from './record-head.ts';
import { CorruptLogError } from './errors.ts';
import { batchHeaderAt, batchHeadersAfter, checkFrame, FRAME_HEADER_BYTES, PIPELINE_DEPTH } from './framing.ts';
import { LogIndex } from './log-index.ts';
import { EMPTY_CHECKPOINT, INDEX_DIRECTORY, type IndexCheckpoint, type PersistedIndex } from './lmdb-index.ts';
import { persistIndexUpTo, type BatchBoundary } from './index-checkpointer.ts';
import { sealedSegmentFrames } from './segment-frames.ts';
import { SegmentReader } from './segment-reader.ts';
import { readWriterCheckpoint, writerCheckpointPresent, writeWriterCheckpoint, WRITER_CHECKPOINT_FILE } from './writer-checkpoint.ts';
import type { EventLogger } from './logger.ts';
import {
  listSegments,
  parseSegmentHeader,
  segmentFileName,
  segmentHeader,
  syncDirectory,
  SEGMENT_HEADER_BYTES,
  type SegmentFile,
} from './segment.ts';

export interface RecoveredLog {
  index: LogIndex;
  segments: SegmentFile[];
  /** Byte length of the last segment after recovery: where the next batch goes. */
  tailBytes: number;
  /** Events read into the index at this open: those after the persisted index's checkpoint. */
  replayedEvents: number;
}

export interface RecoveryOptions {
  readOnly: boolean;
  /** The on-disk index: only the events after its checkpoint are read into the heap. */
  persisted?: PersistedIndex;
  /**
   * 'all' (the default) checks the checksum of every frame of every segment at open, streaming,
   * without indexing what the persisted index already holds: damage anywhere stops the start, at
   * the cost of reading the log's bytes once (about a second per 700 MB). 'checkpoint' reads only
   * what follows the checkpoint: a start independent of the log's length; damage before it is
   * then found when the record is read, and by the audit.
   */
  verify?: 'all' | 'checkpoint';
  /**
   * For the recovery of a running store after a failed write: the position from which its writer
   * refused every append. Their callers were told that nothing was recorded, so whatever those
   * batches left is cut, whole batches included (at a start the log cannot know, and keeps a
   * whole batch a crash did not acknowledge: its callers never heard either way).
   */
  refusedFrom?: number;
}

/** A log rebuilt from scratch writes its index at the end of each sealed segment once this many events wait. */
const REBUILD_FLUSH_EVENTS = 16_384;

/**
 * Opens the log directory: checks every frame (or those after the index checkpoint), reads the
 * events after the checkpoint into the index, and repairs exactly one kind of damage, a torn
 * tail (a crash while a group commit was being written and synced: none of it was
 * acknowledged). The tail is truncated and the truncation logged. Any other damage stops the
 * start with the file and offset; nothing is dropped silently.
 */
export async function recoverLog(dir: string, log: EventLogger, options: RecoveryOptions = { readOnly: false }): Promise<RecoveredLog> {
  const { readOnly } = options;
  // Read before the writer checkpoint: a writer advances that one first, so a reader beside it
  // never sees an index ahead of the acknowledgements it read.
  const indexed = options.persisted?.checkpoint();
  // Events acknowledged durable by the last writer: nothing before this may be cut or missing.
  const recorded = readWriterCheckpoint(dir);
  // Unreadable (not absent, not torn at creation): then the index on disk, which is never
  // ahead of it, says how many at least; otherwise damage to acknowledged data could pass as a
  // torn tail and be cut.
  const unreadable = recorded === undefined && writerCheckpointPresent(dir) && (indexed?.events ?? 0) > 0;
  let acknowledged = recorded ?? (unreadable ? indexed!.events : 0);
  let segments = await listSegments(dir);
  if (segments.length === 0) {
    if (acknowledged > 0) throw new CorruptLogError(WRITER_CHECKPOINT_FILE, 0, `no segment file is left, but ${acknowledged} events were acknowledged: the log's files were deleted or moved`);
    if (readOnly) return { index: new LogIndex(), segments, tailBytes: 0, replayedEvents: 0 };
    segments = [await createSegment(dir, 0)];
  }
  const { persisted, checkpoint, mismatch, afterMachineCrash } = await usableCheckpoint(options, indexed, segments, acknowledged, !unreadable);
  if (unreadable && mismatch && !afterMachineCrash)
    throw new CorruptLogError(
      WRITER_CHECKPOINT_FILE,
      0,
      `unreadable, and the index on disk disagrees with the log (${mismatch}): events acknowledged durable may be missing. Restore the data directory from a backup; to accept the log as it stands, delete ${WRITER_CHECKPOINT_FILE} and the ${INDEX_DIRECTORY} directory`,
    );
  if (unreadable && mismatch) acknowledged = 0;
  else if (unreadable) log.warn({ file: WRITER_CHECKPOINT_FILE, acknowledged }, `event log: the writer checkpoint is unreadable; judged by the index on disk, which covers ${acknowledged} events`);
  const verifyAll = (options.verify ?? 'all') === 'all';
  const index = new LogIndex(persisted, checkpoint.events);
  let writtenAcknowledged = acknowledged;
  /**
   * Writes the index up to synced events. They count as acknowledged from here on (a tail the
   * crashed writer never acknowledged is part of the log now): the writer checkpoint is raised
   * first, so the index on disk is never ahead of it (a start would distrust it and rebuild it).
   */
  const persistSynced = async (boundary: BatchBoundary): Promise<void> => {
    if (boundary.events > writtenAcknowledged) {
      writeWriterCheckpoint(dir, boundary.events);
      writtenAcknowledged = boundary.events;
    }
    await persistIndexUpTo(index, persisted!, segments, boundary);
  };
  let tailBytes = 0;
  let expectedFirst = 0;
  for (const [i, segment] of segments.entries()) {
    const isLast = i === segments.length - 1;
    if (i < checkpoint.segment) {
      // All in the index already: checked (streamed, never held whole) or, with verify
      // 'checkpoint', matched by name only (usableCheckpoint).
      if (verifyAll) expectedFirst = await checkSealedSegment(segment, expectedFirst);
      continue;
    }
    const bytes = await readFile(segment.path);
    const first = parseSegmentHeader(bytes);
    if (first === undefined) throw new CorruptLogError(segment.name, 0, 'not a segment header');
    // Segments skipped unread were matched by name against the index's list of them.
    if (i === checkpoint.segment && !verifyAll) expectedFirst = checkpoint.segmentFirstPositions[i]!;
    if (first !== segment.firstPosition || first !== expectedFirst)
      throw new CorruptLogError(segment.name, 0, `segment starts at position ${first}, expected ${expectedFirst} (a segment is missing or misnamed)`);
    // Bytes before this offset are only checked; from it on, records go into the index.
    const indexFrom = i === checkpoint.segment ? Math.max(checkpoint.offset, SEGMENT_HEADER_BYTES) : SEGMENT_HEADER_BYTES;
    const scanFrom = verifyAll ? SEGMENT_HEADER_BYTES : indexFrom;
    const end = scanSegment(segment, i, bytes, { scanFrom, indexFrom, refusedFrom: options.refusedFrom }, index, isLast);
    expectedFirst = index.nextPosition;
    if (end < bytes.length && index.nextPosition < acknowledged)
      throw new CorruptLogError(segment.name, end, `damaged data at event ${index.nextPosition}, before the ${acknowledged} events acknowledged durable (writer checkpoint): this is not a torn tail`);
    if (end < bytes.length && readOnly) {
      // A reader leaves the file alone: the tail may be a batch its writer is writing right now.
      log.warn({ file: segment.name, offset: end, bytes: bytes.length - end }, `event log (read-only): ignoring ${bytes.length - end} unfinished bytes at the end of ${segment.name} from offset ${end}`);
    } else if (end < bytes.length) {
      await truncateTornTail(segment, end);
      const what = options.refusedFrom === undefined ? 'a torn tail' : 'the appends refused after a failed write';
      const why = options.refusedFrom === undefined ? 'an unacknowledged write cut short by a crash' : `events from ${options.refusedFrom} on; their callers were told nothing was recorded`;
      log.warn({ file: segment.name, offset: end, droppedBytes: bytes.length - end }, `event log: truncated ${what}, ${bytes.length - end} bytes in ${segment.name} at offset ${end} (${why})`);
    }
    if (isLast) tailBytes = end;
    // A sealed segment was synced before the next was started: its index may be written now,
    // so that rebuilding a long log never holds it all.
    else if (persisted && !readOnly && index.tailLength >= REBUILD_FLUSH_EVENTS) await persistSynced({ events: index.locatedCount, segment: i, offset: end });
  }
  if (index.nextPosition < acknowledged) {
    const last = segments.at(-1)!;
    throw new CorruptLogError(last.name, tailBytes, `the log ends at event ${index.nextPosition}, but ${acknowledged} events were acknowledged durable (writer checkpoint): a segment after ${last.name} is missing, or a file was cut`);
  }
  const replayedEvents = index.nextPosition - checkpoint.events;
  // Said after the log's own findings (a torn tail, say), which often are the reason.
  if (mismatch) log.warn({ reason: mismatch }, `event index did not match the log (${mismatch}): ${readOnly ? 'read the log without it' : 'rebuilt it from the log'}`);
  if (readOnly) return { index, segments, tailBytes, replayedEvents };
  // What a crashed predecessor wrote but never synced is about to be served: make it durable first.
  const last = segments.at(-1)!;
  const handle = await open(last.path, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  // Now durable, what was replayed goes into the index on disk before the first append: the
  // next start will not read it again, and the writer's first moments carry no checkpoint.
  if (persisted && index.tailLength > 0) await persistSynced({ events: index.locatedCount, segment: segments.length - 1, offset: tailBytes });
  return { index, segments, tailBytes, replayedEvents };
}

/**
 * The persisted index's checkpoint when it fits this log: it covers no more than the writer
 * checkpoint acknowledged, its segments are there and long enough, and the event it ends with
 * has the id it recorded. Otherwise (an index from before a restore, of another format, or a log
 * changed under it) the index is rebuilt from the log; a reader holds it in memory instead.
 */
async function usableCheckpoint(
  options: RecoveryOptions,
  indexed: IndexCheckpoint | undefined,
  segments: readonly SegmentFile[],
  acknowledged: number,
  /** False when a mismatch stops the start: the index stays as evidence, and the next start stops too. */
  clearOnMismatch = true,
): Promise<{ persisted?: PersistedIndex; checkpoint: IndexCheckpoint; mismatch?: string; afterMachineCrash?: boolean }> {
  const persisted = options.persisted;
  if (!persisted || !indexed) return { checkpoint: EMPTY_CHECKPOINT };
  const afterMachineCrash = !options.readOnly && (await persisted.openedAfterMachineCrash());
  const mismatch = afterMachineCrash
    ? 'it was open when the machine stopped, and its last commits were not synced'
    : indexed.events === 0
      ? persisted.holdsEntries()
        ? 'it holds entries no checkpoint covers (an index of another format, or a rebuild cut short)'
        : undefined
      : await checkpointMismatch(persisted, indexed, segments, acknowledged);
  if (mismatch === undefined) return { persisted, checkpoint: indexed };
  if (options.readOnly || (!clearOnMismatch && !afterMachineCrash)) return { checkpoint: EMPTY_CHECKPOINT, mismatch, afterMachineCrash };
  await persisted.clear();
  return { persisted, checkpoint: EMPTY_CHECKPOINT, mismatch, afterMachineCrash };
}

async function checkpointMismatch(persisted: PersistedIndex, checkpoint: IndexCheckpoint, segments: readonly SegmentFile[], acknowledged: number): Promise<string | undefined> {
  // Only durable events are indexed, and the writer checkpoint counts them first: an index
  // ahead of it describes writes this log does not have.
  if (checkpoint.events > acknowledged) return `it covers ${checkpoint.events} events, the writer checkpoint acknowledges ${acknowledged}`;
  const names = checkpoint.segmentFirstPositions;
  if (segments.length <= checkpoint.segment || names.length !== checkpoint.segment + 1) return `it ends in segment ${checkpoint.segment}, the log has ${segments.length}`;
  const renamed = names.findIndex((first, k) => segments[k]!.firstPosition !== first);
  if (renamed >= 0) return `segment ${renamed} of the log starts at position ${segments[renamed]!.firstPosition}, the index says ${names[renamed]}`;
  const last = persisted.location(checkpoint.events - 1);
  if (!last || last.id !== checkpoint.lastId) return `its last event ${checkpoint.events - 1} is not recorded`;
  const file = segments[last.segment];
  if (!file) return `its last event is in segment ${last.segment}, which is missing`;
  const { size } = await stat(file.path);
  if (size < checkpoint.offset) return `${file.name} is ${size} bytes, shorter than the ${checkpoint.offset} indexed`;
  const reader = new SegmentReader(segments);
  try {
    const event = await reader.readEvent(last);
    if (event.position !== BigInt(checkpoint.events - 1) || event.id !== last.id) return `the log has event ${event.id} at position ${event.position} where the index has ${last.id}`;
  } catch (err) {
    return `the record of event ${checkpoint.events - 1} cannot be read (${(err as Error).message})`;
  } finally {
    await reader.close();
  }
  return undefined;
}

/** Checks every frame of a sealed segment the index holds; returns the position the next segment must start at. */
async function checkSealedSegment(segment: SegmentFile, expectedFirst: number): Promise<number> {
  if (segment.firstPosition !== expectedFirst)
    throw new CorruptLogError(segment.name, 0, `segment starts at position ${segment.firstPosition}, expected ${expectedFirst} (a segment is missing or misnamed)`);
  let events = 0;
  for await (const _frame of sealedSegmentFrames(segment)) events++;
  return expectedFirst + events;
}

interface ScanRange {
  /** Where checking starts (after the segment header, or at the checkpoint when only the tail is read). */
  scanFrom: number;
  /** Records from this offset on go into the index; before it they are only checked and counted. */
  indexFrom: number;
  /** Batches from this position on end the data (RecoveryOptions.refusedFrom). */
  refusedFrom?: number;
}

/** Scans batches; returns the offset where valid data ends (the file length unless torn). */
function scanSegment(segment: SegmentFile, segmentNumber: number, bytes: Buffer, range: ScanRange, index: LogIndex, isLast: boolean): number {
  let offset = range.scanFrom;
  const corrupt = (at: number, reason: string) => new CorruptLogError(segment.name, at, reason);
  while (offset < bytes.length) {
    const batchStart = offset;
    if (isLast && range.refusedFrom !== undefined && batchStart >= range.indexFrom && index.nextPosition >= range.refusedFrom) return batchStart;
    const header = checkFrame(bytes, offset);
    const batch = header.kind === 'ok' ? batchHeaderAt(bytes, offset, header.payloadLength) : undefined;
    if (header.kind !== 'ok' || batch === undefined) {
      if (isLast && isTornTail(bytes, batchStart)) return batchStart;
      throw corrupt(offset, header.kind === 'bad' ? header.reason : header.kind === 'incomplete' ? 'batch header cut short' : 'expected a batch header');
    }
    offset += FRAME_HEADER_BYTES + header.payloadLength;
    const batchEnd = offset + batch.length;
    if (batchEnd > bytes.length) {
      if (isLast) return batchStart;
      throw corrupt(batchStart, `batch of ${batch.length} bytes runs past the end of the file`);
    }
    const indexed = batchStart >= range.indexFrom;
    const records: { event: RecordHead; offset: number; length: number }[] = [];
    while (offset < batchEnd) {
      const check = checkFrame(bytes.subarray(0, batchEnd), offset);
      if (check.kind !== 'ok') {
        if (isLast && isTornTail(bytes, batchStart)) return batchStart;
        throw corrupt(offset, check.kind === 'bad' ? check.reason : 'record runs past the end of its batch');
      }
      const length = FRAME_HEADER_BYTES + check.payloadLength;
      if (indexed) {
        let event: RecordHead;
        try {
          event = decodeRecordHead(bytes, offset, check.payloadLength);
        } catch (err) {
          throw corrupt(offset, `unreadable record: ${(err as Error).message}`);
        }
        records.push({ event, offset, length });
      }
      offset += length;
    }
    if (indexed) commitBatch(records, segmentNumber, index, corrupt);
  }
  return offset;
}

/**
 * Whether damage in the batch starting at `batchStart` of the last segment can be a tear: only
 * batches still unsynced at a crash can be torn, and those are the last one, and the one before
 * it when the last was written while it synced (a pipelined batch). Damage followed by any other
 * batch is damage to synced data.
 */
function isTornTail(bytes: Buffer, batchStart: number): boolean {
  const after = batchHeadersAfter(bytes, batchStart + 1, PIPELINE_DEPTH);
  return after.length < PIPELINE_DEPTH && after.every((header) => header.pipelined);
}

function commitBatch(
  batch: { event: RecordHead; offset: number; length: number }[],
  segment: number,
  index: LogIndex,
  corrupt: (at: number, reason: string) => CorruptLogError,
): void {
  // An append is one run of records of one stream: reserved together, as the writer did, so a
  // stream's positions are looked up once and kept in an array of their exact length.
  for (let from = 0; from < batch.length; ) {
    const stream = batch[from]!.event.stream;
    let to = from + 1;
    while (to < batch.length && batch[to]!.event.stream === stream) to++;
    const run = batch.slice(from, to);
    run.forEach(({ event, offset }, k) => {
      if (event.position !== index.nextPosition + k) throw corrupt(offset, `record has position ${event.position}, expected ${index.nextPosition + k}`);
    });
    const before = index.reserve(stream, run.map((r) => r.event));
    for (const [k, { event, offset, length }] of run.entries()) {
      if (event.revision !== before + k) throw corrupt(offset, `record of ${stream} has revision ${event.revision}, expected ${before + k}`);
      index.locate(event.position, { segment, offset, length });
    }
    from = to;
  }
}

async function truncateTornTail(segment: SegmentFile, end: number): Promise<void> {
  const handle = await open(segment.path, 'r+');
  try {
    await handle.truncate(end);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Creates a segment atomically: header written and synced under a temporary name, then renamed
 * and the directory synced, so a segment file either exists whole or not at all.
 */
export async function createSegment(dir: string, firstPosition: number): Promise<SegmentFile> {
  const name = segmentFileName(firstPosition);
  const path = join(dir, name);
  const temporary = `${path}.creating`;
  const handle = await open(temporary, 'w');
  try {
    await handle.write(segmentHeader(firstPosition), 0, SEGMENT_HEADER_BYTES, 0);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
  await syncDirectory(dir);
  return { name, path, firstPosition };
}
