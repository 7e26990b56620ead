import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';

/** A record's payload, and the CRC-32 of it that follows. */
export const RECORD_PAYLOAD_BYTES = 44;
const RECORD_BYTES = RECORD_PAYLOAD_BYTES + 4;

/**
 * The result log's leaves as a file of fixed-width records (payload | CRC-32), record i at byte
 * 48i, written at the end and read with pread. Read this way, not through a memory map, a page of
 * it counts in the service's RSS only while a read holds it: appended leaves are written once and
 * seldom read again (a proof reads a few), and through LMDB's map each one stayed resident.
 * Its owner (LeafStore) decides how many records are valid: the file may run ahead of that after
 * a crash, and is cut back at open.
 */
export class LeafRecords {
  private constructor(private readonly fd: number) {}

  /** Opens (creating) the file; read-only, as an auditor beside the service reads it. */
  static open(path: string, mode: { readOnly: boolean } = { readOnly: false }): LeafRecords {
    return new LeafRecords(openSync(path, mode.readOnly ? 'r' : 'a+'));
  }

  /** Whole records in the file. */
  get count(): number {
    return Math.floor(fstatSync(this.fd).size / RECORD_BYTES);
  }

  /** Keeps the first `count` records and drops the rest (a torn record included). */
  cutTo(count: number): void {
    ftruncateSync(this.fd, count * RECORD_BYTES);
  }

  /** Writes the payloads (each RECORD_PAYLOAD_BYTES) as records `from` onwards; `durable` waits for the disk. */
  write(from: number, payloads: Buffer[], durable: boolean): void {
    const bytes = Buffer.allocUnsafe(payloads.length * RECORD_BYTES);
    payloads.forEach((payload, i) => {
      const at = i * RECORD_BYTES;
      payload.copy(bytes, at);
      bytes.writeUInt32LE(crc32(payload), at + RECORD_PAYLOAD_BYTES);
    });
    // The file is opened for appending: every write lands at its end, which is record `from`.
    if (fstatSync(this.fd).size !== from * RECORD_BYTES) this.cutTo(from);
    for (let written = 0; written < bytes.length; ) written += writeSync(this.fd, bytes, written);
    if (durable) fdatasyncSync(this.fd);
  }

  /** Record `index`'s payload; throws when it is missing or its checksum fails. */
  read(index: number): Buffer {
    const payload = this.readMany(index, 1)[0];
    if (!payload) throw new Error(damaged(index));
    return payload;
  }

  /** The payloads of records `from` .. from+count-1, in one read; undefined for one missing or damaged. */
  readMany(from: number, count: number): Array<Buffer | undefined> {
    const bytes = Buffer.allocUnsafe(count * RECORD_BYTES);
    const read = readSync(this.fd, bytes, 0, bytes.length, from * RECORD_BYTES);
    return Array.from({ length: count }, (_, i) => {
      const at = i * RECORD_BYTES;
      const payload = bytes.subarray(at, at + RECORD_PAYLOAD_BYTES);
      return read >= at + RECORD_BYTES && crc32(payload) === bytes.readUInt32LE(at + RECORD_PAYLOAD_BYTES) ? payload : undefined;
    });
  }

  close(): void {
    closeSync(this.fd);
  }
}

export const damaged = (index: number): string => `leaf ${index} of the result log's store is missing or damaged`;
