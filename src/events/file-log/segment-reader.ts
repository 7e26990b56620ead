import { open, type FileHandle } from 'node:fs/promises';
import type { RecordedEvent } from '../port.ts';
import { CorruptLogError } from './errors.ts';
import { checkFrame, decodeRecord } from './framing.ts';
import type { Location } from './location.ts';
import type { SegmentFile } from './segment.ts';

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

  /** Decodes the frame at `at` of `bytes`, which was read from `location`. */
  decodeAt(bytes: Buffer, at: number, location: Location): RecordedEvent {
    const check = checkFrame(bytes.subarray(0, at + location.length), at);
    if (check.kind !== 'ok')
      throw new CorruptLogError(this.name(location.segment), location.offset, check.kind === 'bad' ? check.reason : 'record cut short');
    try {
      return decodeRecord(bytes, at, check.payloadLength);
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
