import { join } from 'node:path';
import { INDEX_DIRECTORY, PersistedIndex, SCANNED_REVISIONS } from './lmdb-index.ts';
import { decodeRecordHead, type RecordHead } from './record-head.ts';
import { sealedSegmentFrames, type SegmentFrame } from './segment-frames.ts';
import { listSegments } from './segment.ts';

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
    try {
      for (const [segment, file] of segments.entries()) {
        if (report.checked >= checkpoint.events) break;
        for await (const frame of sealedSegmentFrames(file)) {
          const head = decodeRecordHead(frame.bytes, frame.at, frame.payloadLength);
          compare(index, head, segment, frame, file.name, mismatch);
          // What follows the checkpoint may be a batch its writer is writing now: not read.
          if (++report.checked >= checkpoint.events) break;
        }
      }
    } catch (err) {
      mismatch(report.checked, `the log cannot be read past event ${report.checked}: ${(err as Error).message}`);
    }
    if (report.checked < checkpoint.events) mismatch(report.checked, `the index covers ${checkpoint.events} events, the log has ${report.checked} of them`);
    return report;
  } finally {
    await index.close();
  }
}

/** One event of the log against the index's three entries for it. */
function compare(index: PersistedIndex, head: RecordHead, segment: number, frame: SegmentFrame, fileName: string, mismatch: (position: number, message: string) => void): void {
  const where = `${fileName} offset ${frame.offset}`;
  const located = index.location(head.position);
  if (!located) mismatch(head.position, `the index has no location for the event at ${where}`);
  else if (located.segment !== segment || located.offset !== frame.offset || located.length !== frame.length || located.id !== head.id)
    mismatch(head.position, `the index places event ${located.id} at segment ${located.segment} offset ${located.offset}; the log has ${head.id} at ${where}`);
  const atRevision = index.positionAt(head.stream, head.revision);
  if (atRevision !== head.position) mismatch(head.position, `the index has ${head.stream} revision ${head.revision} at position ${atRevision}, the log at ${head.position}`);
  // An id from its stream's SCANNED_REVISIONS-th event on is in the ids table; before, it is found by reading the stream's ids.
  const revisionById = head.revision < SCANNED_REVISIONS ? index.revisionOfId(head.stream, head.id) : -1;
  const byId = head.revision < SCANNED_REVISIONS ? (revisionById < 0 ? -1 : index.positionAt(head.stream, revisionById)) : index.positionOfId(head.id);
  if (byId < head.position || index.idAt(byId) !== head.id) mismatch(head.position, `the index finds id ${head.id} at position ${byId}, the log has it at ${head.position}`);
}
