import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from './crc32.ts';

/**
 * The writer checkpoint, as EventStoreDB keeps one: how many events of the log were acknowledged
 * durable. Recovery may cut a torn tail only beyond it; damage before it is damage to
 * acknowledged data, and stops the start. A log shorter than it has lost a segment.
 *
 * One fixed 32-byte record rewritten in place (count and CRC32), after each acknowledged batch,
 * at most one write in flight, and by recovery once a replayed tail is synced. It is not fsynced
 * on its own: after a process crash the page cache holds it; after a power loss it may lag
 * behind the log, which only means the last few batches are judged as they were before it
 * existed (a tear is possible there). It never runs ahead of what was synced.
 */
export const WRITER_CHECKPOINT_FILE = 'writer.chk';
const RECORD_BYTES = 32;

export function readWriterCheckpoint(dir: string): number | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, WRITER_CHECKPOINT_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const text = bytes.subarray(0, RECORD_BYTES).toString('latin1');
  const match = /^(\d{1,20}) ([0-9a-f]{8})\s*$/.exec(text);
  // A checkpoint cut short by a power loss guards nothing: the log is judged without it.
  if (!match || crc32(Buffer.from(match[1]!, 'latin1')).toString(16).padStart(8, '0') !== match[2]) return undefined;
  return Number(match[1]);
}

/** Whether the checkpoint file is there, readable or not. */
export function writerCheckpointPresent(dir: string): boolean {
  return existsSync(join(dir, WRITER_CHECKPOINT_FILE));
}

function checkpointRecord(count: number): string {
  const digits = String(count);
  return `${digits} ${crc32(Buffer.from(digits, 'latin1')).toString(16).padStart(8, '0')}`.padEnd(RECORD_BYTES - 1, ' ') + '\n';
}

/** Created if absent, then opened without O_APPEND or truncation: every write replaces the record at offset 0. */
function openInPlace(dir: string): number {
  const path = join(dir, WRITER_CHECKPOINT_FILE);
  closeSync(openSync(path, 'a'));
  return openSync(path, 'r+');
}

/**
 * Writes the checkpoint once, outside a running writer: recovery, once a replayed tail is synced,
 * so that what it then puts in the index on disk is never ahead of this count.
 */
export function writeWriterCheckpoint(dir: string, durableCount: number): void {
  const fd = openInPlace(dir);
  try {
    writeSync(fd, checkpointRecord(durableCount), 0, 'latin1');
  } finally {
    closeSync(fd);
  }
}

export class WriterCheckpoint {
  private readonly fd: number;
  private written = -1;
  private latest = -1;
  private scheduled = false;
  private closed = false;

  /** `onWritten` hears every count written: what a start would now trust as acknowledged. */
  constructor(
    dir: string,
    private readonly onWritten?: (durableCount: number) => void,
  ) {
    this.fd = openInPlace(dir);
  }

  /** Records that `durableCount` events are acknowledged; coalesces writes within a turn. */
  advance(durableCount: number): void {
    if (durableCount <= this.latest) return;
    this.latest = durableCount;
    if (this.scheduled) return;
    this.scheduled = true;
    // Deferred out of the acknowledgement path; by then several batches may have become one write.
    setImmediate(() => {
      this.scheduled = false;
      this.write();
    });
  }

  private write(): void {
    if (this.closed || this.latest <= this.written) return;
    try {
      writeSync(this.fd, checkpointRecord(this.latest), 0, 'latin1');
      this.written = this.latest;
    } catch {
      // A full disk refuses this too; the log reports the failure of its own writes.
      return;
    }
    this.onWritten?.(this.written);
  }

  close(): void {
    this.write();
    this.closed = true;
    closeSync(this.fd);
  }
}
