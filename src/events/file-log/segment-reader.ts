import { open, type FileHandle } from 'node:fs/promises';
import type { RecordedEvent } from '../port.ts';
import { CorruptLogError } from './errors.ts';
import { decodeEvent } from './event-decoding.ts';
import { checkFrame } from './framing.ts';
import type { Location } from './location.ts';
import type { SegmentFile } from './segment.ts';

/** Records closer than this in one file are read together: skipping fewer bytes costs more than a read. */
const READ_GAP_BYTES = 16 * 1024;
/** One read spans at most this much. */
const READ_SPAN_BYTES = 1024 * 1024;

/**
 * Positional reads of frames from segment files, each checksum-checked again: damage that
 * appears after start is reported with its file and offset, never returned as data.
 */
export class SegmentReader {
  private readonly handles = new Map<number, Promise<FileHandle>>();

  constructor(private readonly segments: readonly SegmentFile[]) {}

  /** Reads `length` bytes starting at `offset` of a segment. */
  async readBytes(segment: number, offset: number, length: number): Promise<Buffer> {
    const handle = await this.handle(segment);
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
      if (bytesRead === 0) throw new CorruptLogError(this.name(segment), offset + filled, 'file ends before an indexed record');
      filled += bytesRead;
    }
    return buffer;
  }

  async readEvent(location: Location): Promise<RecordedEvent> {
    const bytes = await this.readBytes(location.segment, location.offset, location.length);
    return this.decodeAt(bytes, 0, location);
  }

  /**
   * The events at `locations`, in file order (ascending), in that order. Neighbours of one file
   * are read in one pread when the bytes between them are few: a stream appended in batches, or
   * folded from its start, is read in a few reads instead of one per event (12,000 events: 600
   * ms one by one).
   */
  async readEvents(locations: readonly Location[]): Promise<RecordedEvent[]> {
    const reads: Promise<RecordedEvent[]>[] = [];
    for (let first = 0; first < locations.length; ) {
      const start = locations[first]!;
      let last = first;
      for (let next = first + 1; next < locations.length; next++) {
        const candidate = locations[next]!;
        const end = locations[last]!.offset + locations[last]!.length;
        if (candidate.segment !== start.segment || candidate.offset < end || candidate.offset - end > READ_GAP_BYTES) break;
        if (candidate.offset + candidate.length - start.offset > READ_SPAN_BYTES) break;
        last = next;
      }
      reads.push(this.readRun(locations.slice(first, last + 1)));
      first = last + 1;
    }
    return (await Promise.all(reads)).flat();
  }

  private async readRun(run: readonly Location[]): Promise<RecordedEvent[]> {
    const start = run[0]!;
    const last = run.at(-1)!;
    const bytes = await this.readBytes(start.segment, start.offset, last.offset + last.length - start.offset);
    return run.map((location) => this.decodeAt(bytes, location.offset - start.offset, location));
  }

  /** Decodes the frame at `at` of `bytes`, which was read from `location`. */
  decodeAt(bytes: Buffer, at: number, location: Location): RecordedEvent {
    const check = checkFrame(bytes.subarray(0, at + location.length), at);
    if (check.kind !== 'ok')
      throw new CorruptLogError(this.name(location.segment), location.offset, check.kind === 'bad' ? check.reason : 'record cut short');
    try {
      return decodeEvent(bytes, at, check.payloadLength);
    } catch (err) {
      throw new CorruptLogError(this.name(location.segment), location.offset, `unreadable record: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(handles.map(async (h) => (await h).close()));
  }

  private handle(segment: number): Promise<FileHandle> {
    let handle = this.handles.get(segment);
    if (!handle) {
      const file = this.segments[segment];
      if (!file) throw new Error(`no segment number ${segment}`);
      handle = open(file.path, 'r');
      this.handles.set(segment, handle);
    }
    return handle;
  }

  private name(segment: number): string {
    return this.segments[segment]?.name ?? `segment #${segment}`;
  }
}
