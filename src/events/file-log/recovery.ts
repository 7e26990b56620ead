import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeRecordHead, type RecordHead } from './record-head.ts';
import { CorruptLogError } from './errors.ts';
import { batchHeaderAt, batchHeadersAfter, checkFrame, FRAME_HEADER_BYTES, PIPELINE_DEPTH } from './framing.ts';
import { LogIndex } from './log-index.ts';
import { readWriterCheckpoint, WRITER_CHECKPOINT_FILE } from './writer-checkpoint.ts';
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
}

/**
 * Opens the log directory: checks every frame of every segment, rebuilds the index, and repairs
 * exactly one kind of damage, a torn tail (a crash while a group commit was being written and
 * synced: none of it was acknowledged). The tail is truncated and the truncation logged. Any
 * other damage stops the start with the file and offset; nothing is dropped silently.
 */
export async function recoverLog(dir: string, log: EventLogger, mode: { readOnly: boolean } = { readOnly: false }): Promise<RecoveredLog> {
  // Events acknowledged durable by the last writer: nothing before this may be cut or missing.
  const acknowledged = readWriterCheckpoint(dir) ?? 0;
  let segments = await listSegments(dir);
  if (segments.length === 0) {
    if (acknowledged > 0) throw new CorruptLogError(WRITER_CHECKPOINT_FILE, 0, `no segment file is left, but ${acknowledged} events were acknowledged: the log's files were deleted or moved`);
    if (mode.readOnly) return { index: new LogIndex(), segments, tailBytes: 0 };
    segments = [await createSegment(dir, 0)];
  }
  const index = new LogIndex();
  let tailBytes = 0;
  for (const [i, segment] of segments.entries()) {
    const isLast = i === segments.length - 1;
    const bytes = await readFile(segment.path);
    const first = parseSegmentHeader(bytes);
    if (first === undefined) throw new CorruptLogError(segment.name, 0, 'not a segment header');
    if (first !== segment.firstPosition || first !== index.nextPosition)
      throw new CorruptLogError(segment.name, 0, `segment starts at position ${first}, expected ${index.nextPosition} (a segment is missing or misnamed)`);
    const end = scanSegment(segment, i, bytes, index, isLast);
    if (end < bytes.length && index.nextPosition < acknowledged)
      throw new CorruptLogError(segment.name, end, `damaged data at event ${index.nextPosition}, before the ${acknowledged} events acknowledged durable (writer checkpoint): this is not a torn tail`);
    if (end < bytes.length && mode.readOnly) {
      // A reader leaves the file alone: the tail may be a batch its writer is writing right now.
      log.warn({ file: segment.name, offset: end, bytes: bytes.length - end }, `event log (read-only): ignoring ${bytes.length - end} unfinished bytes at the end of ${segment.name} from offset ${end}`);
    } else if (end < bytes.length) {
      await truncateTornTail(segment, end);
      log.warn(
        { file: segment.name, offset: end, droppedBytes: bytes.length - end },
        `event log: truncated a torn tail of ${bytes.length - end} bytes in ${segment.name} at offset ${end} (an unacknowledged write cut short by a crash)`,
      );
    }
    if (isLast) tailBytes = end;
  }
  if (index.nextPosition < acknowledged) {
    const last = segments.at(-1)!;
    throw new CorruptLogError(last.name, tailBytes, `the log ends at event ${index.nextPosition}, but ${acknowledged} events were acknowledged durable (writer checkpoint): a segment after ${last.name} is missing, or a file was cut`);
  }
  if (mode.readOnly) return { index, segments, tailBytes };
  // What a crashed predecessor wrote but never synced is about to be served: make it durable first.
  const last = segments.at(-1)!;
  const handle = await open(last.path, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return { index, segments, tailBytes };
}

/** Scans batches; returns the offset where valid data ends (the file length unless torn). */
function scanSegment(segment: SegmentFile, segmentNumber: number, bytes: Buffer, index: LogIndex, isLast: boolean): number {
  let offset = SEGMENT_HEADER_BYTES;
  const corrupt = (at: number, reason: string) => new CorruptLogError(segment.name, at, reason);
  while (offset < bytes.length) {
    const batchStart = offset;
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
    const records: { event: RecordHead; offset: number; length: number }[] = [];
    while (offset < batchEnd) {
      const check = checkFrame(bytes.subarray(0, batchEnd), offset);
      if (check.kind !== 'ok') {
        if (isLast && isTornTail(bytes, batchStart)) return batchStart;
        throw corrupt(offset, check.kind === 'bad' ? check.reason : 'record runs past the end of its batch');
      }
      let event: RecordHead;
      try {
        event = decodeRecordHead(bytes, offset, check.payloadLength);
      } catch (err) {
        throw corrupt(offset, `unreadable record: ${(err as Error).message}`);
      }
      const length = FRAME_HEADER_BYTES + check.payloadLength;
      records.push({ event, offset, length });
      offset += length;
    }
    commitBatch(records, segmentNumber, index, corrupt);
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
