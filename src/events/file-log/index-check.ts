import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { batchHeaderAt, checkFrame, FRAME_HEADER_BYTES } from './framing.ts';
import { INDEX_DIRECTORY, PersistedIndex } from './lmdb-index.ts';
import { decodeRecordHead } from './record-head.ts';
import { listSegments, SEGMENT_HEADER_BYTES } from './segment.ts';

export interface IndexMismatch {
  position: number;
  message: string;
}

export interface IndexCheckReport {
  /** Events the index's checkpoint covers. */
  indexed: number;
  /** Of those, found in the log and compared. */
  checked: number;
  mismatchCount: number;
  /** The first mismatches found (at most 100). */
  mismatches: IndexMismatch[];
}

/** Mismatches kept for the report; the count goes on. */
const MAX_KEPT = 100;

/**
 * Checks the index on disk against the log it was built from, reading the segments directly
 * (not through the index): every event the checkpoint covers must be where the index says, under
 * its id, at its stream and revision, and its id must lead to an event with that id. Read-only;
 * runs beside a live writer (it checks the checkpoint it found at open). Undefined when the
 * directory has no index.
 */
export async function checkIndexAgainstLog(logDir: string): Promise<IndexCheckReport | undefined> {
  const index = PersistedIndex.open(join(logDir, INDEX_DIRECTORY), { readOnly: true });
  if (!index) return undefined;
  try {
    const checkpoint = index.checkpoint();
    const report: IndexCheckReport = { indexed: checkpoint.events, checked: 0, mismatchCount: 0, mismatches: [] };
    const mismatch = (position: number, message: string): void => {
      report.mismatchCount++;
      if (report.mismatches.length < MAX_KEPT) report.mismatches.push({ position, message });
    };
    const segments = await listSegments(logDir);
    for (const [segment, file] of segments.entries()) {
      if (report.checked >= checkpoint.events) break;
      const bytes = await readFile(file.path);
      for (const record of recordsOf(bytes)) {
        if (record.kind === 'damaged') {
          mismatch(report.checked, `${file.name} cannot be read from offset ${record.offset} (${record.reason}): the events after it were not compared`);
          break;
        }
        const { head, offset, length } = record;
        if (head.position >= checkpoint.events) break;
        report.checked++;
        const where = `${file.name} offset ${offset}`;
        const located = index.location(head.position);
        if (!located) mismatch(head.position, `the index has no location for the event at ${where}`);
        else if (located.segment !== segment || located.offset !== offset || located.length !== length || located.id !== head.id)
          mismatch(head.position, `the index places event ${located.id} at segment ${located.segment} offset ${located.offset}; the log has ${head.id} at ${where}`);
        const atRevision = index.positionAt(head.stream, head.revision);
        if (atRevision !== head.position) mismatch(head.position, `the index has ${head.stream} revision ${head.revision} at position ${atRevision}, the log at ${head.position}`);
        const byId = index.positionOfId(head.id);
        if (byId < head.position || index.idAt(byId) !== head.id) mismatch(head.position, `the index finds id ${head.id} at position ${byId}, the log has it at ${head.position}`);
      }
    }
    if (report.checked < checkpoint.events) mismatch(report.checked, `the index covers ${checkpoint.events} events, the log has ${report.checked} of them`);
    return report;
  } finally {
    await index.close();
  }
}

type SegmentRecord = { kind: 'record'; head: ReturnType<typeof decodeRecordHead>; offset: number; length: number } | { kind: 'damaged'; offset: number; reason: string };

/** The records of a segment file in order, each checksum-checked; stops at the first damage. */
function* recordsOf(bytes: Buffer): Generator<SegmentRecord> {
  let offset = SEGMENT_HEADER_BYTES;
  while (offset < bytes.length) {
    const header = checkFrame(bytes, offset);
    const batch = header.kind === 'ok' ? batchHeaderAt(bytes, offset, header.payloadLength) : undefined;
    if (header.kind !== 'ok' || !batch) return yield { kind: 'damaged', offset, reason: 'no batch header' };
    offset += FRAME_HEADER_BYTES + header.payloadLength;
    const batchEnd = Math.min(offset + batch.length, bytes.length);
    while (offset < batchEnd) {
      const frame = checkFrame(bytes.subarray(0, batchEnd), offset);
      if (frame.kind !== 'ok') return yield { kind: 'damaged', offset, reason: frame.kind === 'bad' ? frame.reason : 'record cut short' };
      const length = FRAME_HEADER_BYTES + frame.payloadLength;
      yield { kind: 'record', head: decodeRecordHead(bytes, offset, frame.payloadLength), offset, length };
      offset += length;
    }
  }
}
