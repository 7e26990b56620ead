import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/** LMDB's MDB_MAGIC, stored little-endian in each of the two meta pages at the head of data.mdb. */
const MDB_MAGIC = 0xbeefc0de;
/**
 * Where the magic lies in page 0: after the page header, 24 bytes in the LMDB lmdb-js builds
 * (page number, transaction id, padding, flags, bounds), 16 in LMDB 0.9's (no transaction id).
 */
const MAGIC_OFFSETS = [24, 16];

/**
 * Whether `dir/data.mdb`, when there is one, opens with LMDB's meta page in place. LMDB trusts
 * its file: lmdb-js ends the process with a segmentation fault on a data.mdb whose head is
 * damaged (overwritten, zeroed by a file system after a crash), so an environment is checked
 * before it is opened, and one that fails is rebuilt by its owner instead.
 */
export function lmdbFileProblem(dir: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(join(dir, 'data.mdb'), 'r');
  } catch {
    return undefined; // none yet: LMDB creates it
  }
  try {
    const head = Buffer.alloc(28);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read === 0) return undefined; // created, never written: LMDB initialises it
    if (read === head.length && MAGIC_OFFSETS.some((at) => head.readUInt32LE(at) === MDB_MAGIC)) return undefined;
    return `${join(dir, 'data.mdb')} does not begin with an LMDB meta page`;
  } finally {
    closeSync(fd);
  }
}
