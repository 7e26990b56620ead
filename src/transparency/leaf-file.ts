import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';

/** One leaf of the result log as kept on disk: enough to rebuild the tree and its lookups without the event log. */
export interface StoredLeaf {
  /** Position of the leaf's ResultSigned event in the event log. */
  position: bigint;
  leafHash: Uint8Array;
  sha256: Uint8Array;
  /** `${keyFamily} ${keyId}` */
  key: string;
}

const HEADER_BYTES = 8;
const FIXED_PAYLOAD_BYTES = 8 + 32 + 32;
/** Leaves wait in memory at most this many bytes, or this long, before one write. */
const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 200;

/**
 * The result log's leaves, appended as they are folded, so that a start loads them instead of
 * folding the whole event log again. Records are `u32 length | u32 CRC-32 | u64 position |
 * leaf hash | sha256 | key`. It is a cache of the event log, never ahead of it (a leaf is folded
 * from a durable event), and needs no fsync: whatever a crash leaves of it, the checksums find
 * the valid prefix, and the result log catches up from the event log after it.
 */
export class LeafFile {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private failed = false;

  private constructor(
    private readonly fd: number,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Opens (creating) the file, hands every valid leaf to `visit` in order, and cuts what follows them. */
  static open(path: string, visit: (leaf: StoredLeaf) => void, onError: (error: Error) => void): LeafFile {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'a+');
    // Leaves of one signing key repeat its name: decoded once per run of them.
    let lastKeyBytes = Buffer.alloc(0);
    let lastKey = '';
    let end = 0;
    for (const { bytes, start, length, next } of validRecords(fd)) {
      const keyBytes = bytes.subarray(start + 72, start + length);
      if (!keyBytes.equals(lastKeyBytes)) [lastKeyBytes, lastKey] = [Buffer.from(keyBytes), keyBytes.toString('utf8')];
      visit({ position: bytes.readBigUInt64BE(start), leafHash: bytes.subarray(start + 8, start + 40), sha256: bytes.subarray(start + 40, start + 72), key: lastKey });
      end = next;
    }
    if (end < fstatSync(fd).size) ftruncateSync(fd, end);
    return new LeafFile(fd, onError);
  }

  append(leaf: StoredLeaf): void {
    if (this.failed) return;
    const key = Buffer.from(leaf.key, 'utf8');
    const record = Buffer.allocUnsafe(HEADER_BYTES + FIXED_PAYLOAD_BYTES + key.length);
    record.writeUInt32LE(FIXED_PAYLOAD_BYTES + key.length, 0);
    record.writeBigUInt64BE(leaf.position, 8);
    record.set(leaf.leafHash, 16);
    record.set(leaf.sha256, 48);
    key.copy(record, 80);
    record.writeUInt32LE(crc32(record.subarray(HEADER_BYTES)), 4);
    this.pending.push(record);
    this.pendingBytes += record.length;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0 || this.failed) return;
    const bytes = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    try {
      for (let written = 0; written < bytes.length; ) written += writeSync(this.fd, bytes, written);
    } catch (err) {
      // A full disk: the file keeps a valid prefix (or a torn record the next open cuts), and the
      // next start folds the rest from the event log.
      this.failed = true;
      this.onError(err as Error);
    }
  }

  /** Empties the file: its leaves do not belong to this event log. */
  reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    ftruncateSync(this.fd, 0);
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** The file is read this much at a time: loading a million leaves holds 1 MiB of it, not the file. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * The file's records in order, up to the first cut short or whose checksum fails; each with
 * the chunk it is in (reused by later records), its payload's start and length, and the file
 * offset after it.
 */
function* validRecords(fd: number): Generator<{ bytes: Buffer; start: number; length: number; next: number }> {
  const size = fstatSync(fd).size;
  let chunk: Buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, Math.max(size, HEADER_BYTES)));
  let chunkStart = 0;
  let chunkEnd = 0;
  for (let offset = 0; offset + HEADER_BYTES <= size; ) {
    if (offset + HEADER_BYTES > chunkEnd) [chunk, chunkStart, chunkEnd] = refill(fd, chunk, offset, size);
    const length = chunk.readUInt32LE(offset - chunkStart);
    if (length < FIXED_PAYLOAD_BYTES || offset + HEADER_BYTES + length > size) return;
    if (offset + HEADER_BYTES + length > chunkEnd) [chunk, chunkStart, chunkEnd] = refill(fd, chunk, offset, size, HEADER_BYTES + length);
    const at = offset - chunkStart;
    const start = at + HEADER_BYTES;
    if (crc32(chunk.subarray(start, start + length)) !== chunk.readUInt32LE(at + 4)) return;
    offset += HEADER_BYTES + length;
    yield { bytes: chunk, start, length, next: offset };
  }
}

/** Reads the file from `from` into a chunk of at least `need` bytes (the one given, if large enough). */
function refill(fd: number, chunk: Buffer, from: number, size: number, need = HEADER_BYTES): [Buffer, number, number] {
  const buffer = need > chunk.length ? Buffer.allocUnsafe(need) : chunk;
  const want = Math.min(buffer.length, size - from);
  let filled = 0;
  while (filled < want) {
    const read = readSync(fd, buffer, filled, want - filled, from + filled);
    if (read === 0) break;
    filled += read;
  }
  return [buffer, from, from + filled];
}
