import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
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

  /**
   * Opens (creating) the file, tells `reserve` how many leaves it holds at most, hands every
   * valid leaf to `visit` in order, and cuts what follows them.
   */
  static open(path: string, load: { reserve(count: number): void; visit(leaf: StoredLeaf): void }, onError: (error: Error) => void): LeafFile {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'a+');
    const bytes = readFileSync(path);
    let records = 0;
    for (let at = 0; at + HEADER_BYTES <= bytes.length; at += HEADER_BYTES + bytes.readUInt32LE(at)) records++;
    load.reserve(records);
    const visit = load.visit;
    let offset = 0;
    // Leaves of one signing key repeat its name: decoded once per run of them.
    let lastKeyBytes = Buffer.alloc(0);
    let lastKey = '';
    while (offset + HEADER_BYTES <= bytes.length) {
      const length = bytes.readUInt32LE(offset);
      const start = offset + HEADER_BYTES;
      if (length < FIXED_PAYLOAD_BYTES || start + length > bytes.length || crc32(bytes.subarray(start, start + length)) !== bytes.readUInt32LE(offset + 4)) break;
      const keyBytes = bytes.subarray(start + 72, start + length);
      if (!keyBytes.equals(lastKeyBytes)) [lastKeyBytes, lastKey] = [keyBytes, keyBytes.toString('utf8')];
      visit({ position: bytes.readBigUInt64BE(start), leafHash: bytes.subarray(start + 8, start + 40), sha256: bytes.subarray(start + 40, start + 72), key: lastKey });
      offset = start + length;
    }
    if (offset < bytes.length) ftruncateSync(fd, offset);
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
