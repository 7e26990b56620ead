import { readdir } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Segment files: the log is a sequence of files named after the position of their first event,
 * so that no single file grows without bound and the files sort in log order by name.
 * Each starts with a 16-byte header: 8 bytes of magic, then the first position (u64le).
 */
export const SEGMENT_MAGIC = Buffer.from('EVLOG\u0001\r\n', 'latin1');
export const SEGMENT_HEADER_BYTES = 16;
const NAME_PATTERN = /^(\d{20})\.segment$/;

export function segmentFileName(firstPosition: number): string {
  return `${String(firstPosition).padStart(20, '0')}.segment`;
}

export function segmentHeader(firstPosition: number): Buffer {
  const header = Buffer.alloc(SEGMENT_HEADER_BYTES);
  SEGMENT_MAGIC.copy(header, 0);
  header.writeBigUInt64LE(BigInt(firstPosition), 8);
  return header;
}

/** The first position the header announces, or undefined when it is not a segment header. */
export function parseSegmentHeader(bytes: Buffer): number | undefined {
  if (bytes.length < SEGMENT_HEADER_BYTES || !bytes.subarray(0, 8).equals(SEGMENT_MAGIC)) return undefined;
  return Number(bytes.readBigUInt64LE(8));
}

export interface SegmentFile {
  name: string;
  path: string;
  firstPosition: number;
}

export async function listSegments(dir: string): Promise<SegmentFile[]> {
  const names = await readdir(dir);
  return names
    .flatMap((name) => {
      const m = NAME_PATTERN.exec(name);
      return m ? [{ name, path: join(dir, name), firstPosition: Number(m[1]) }] : [];
    })
    .sort((a, b) => a.firstPosition - b.firstPosition);
}

/** fsync of the directory: makes a created, renamed or removed file's entry durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
