import { open } from 'node:fs/promises';
import { CorruptLogError } from './errors.ts';
import { BATCH_HEADER_BYTES, batchHeaderAt, checkFrame, FRAME_HEADER_BYTES } from './framing.ts';
import { parseSegmentHeader, SEGMENT_HEADER_BYTES, type SegmentFile } from './segment.ts';

/** A record frame of a segment, checksum-checked, in a buffer reused for the next ones. */
export interface SegmentFrame {
  bytes: Buffer;
  /** Where the frame starts in `bytes`. */
  at: number;
  /** Where it starts in the file. */
  offset: number;
  /** Frame length, header included. */
  length: number;
  payloadLength: number;
}

/** Sealed segments are read this much at a time (more when one batch is larger). */
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * The record frames of a sealed segment, in order, each checksum-checked, read in chunks
 * through one reused buffer: checking a 64 MiB segment holds 4 MiB, not the file. Any damage
 * throws CorruptLogError with the file and offset (a sealed segment cannot have a torn tail: it
 * was synced before the next one was started).
 */
export async function* sealedSegmentFrames(segment: SegmentFile): AsyncGenerator<SegmentFrame, void> {
  const handle = await open(segment.path, 'r');
  try {
    const size = (await handle.stat()).size;
    let buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(size, SEGMENT_HEADER_BYTES)));
    let start = 0;
    let end = 0;
    /** Makes file bytes [from, to) present in the buffer; false when the file ends first. */
    const hold = async (from: number, to: number): Promise<boolean> => {
      if (to > size) return false;
      if (from >= start && to <= end) return true;
      if (to - from > buffer.length) buffer = Buffer.allocUnsafe(to - from);
      const want = Math.min(buffer.length, size - from);
      let filled = 0;
      while (filled < want) {
        const { bytesRead } = await handle.read(buffer, filled, want - filled, from + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      [start, end] = [from, from + filled];
      return to <= end;
    };
    const corrupt = (at: number, reason: string) => new CorruptLogError(segment.name, at, reason);
    if (!(await hold(0, SEGMENT_HEADER_BYTES)) || parseSegmentHeader(buffer.subarray(0, SEGMENT_HEADER_BYTES)) !== segment.firstPosition)
      throw corrupt(0, `not the header of a segment starting at position ${segment.firstPosition}`);
    let offset = SEGMENT_HEADER_BYTES;
    while (offset < size) {
      if (!(await hold(offset, Math.min(size, offset + BATCH_HEADER_BYTES)))) throw corrupt(offset, 'batch header cut short');
      const view = buffer.subarray(0, end - start);
      const header = checkFrame(view, offset - start);
      const batch = header.kind === 'ok' ? batchHeaderAt(view, offset - start, header.payloadLength) : undefined;
      if (header.kind !== 'ok' || !batch) throw corrupt(offset, header.kind === 'bad' ? header.reason : 'expected a batch header');
      const recordsFrom = offset + FRAME_HEADER_BYTES + header.payloadLength;
      const batchEnd = recordsFrom + batch.length;
      if (!(await hold(offset, batchEnd))) throw corrupt(offset, `batch of ${batch.length} bytes runs past the end of the file`);
      const records = buffer.subarray(0, batchEnd - start);
      for (let at = recordsFrom; at < batchEnd; ) {
        const frame = checkFrame(records, at - start);
        if (frame.kind !== 'ok') throw corrupt(at, frame.kind === 'bad' ? frame.reason : 'record runs past the end of its batch');
        const length = FRAME_HEADER_BYTES + frame.payloadLength;
        yield { bytes: buffer, at: at - start, offset: at, length, payloadLength: frame.payloadLength };
        at += length;
      }
      offset = batchEnd;
    }
  } finally {
    await handle.close();
  }
}
