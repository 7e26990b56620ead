import type { TileRef } from '../kernel/result-log-port.ts';

/**
 * The C2SP tlog-tiles read API (c2sp.org/tlog-tiles): the tree served as static "tiles" of
 * consecutive RFC 6962 hashes, and the leaves as "entry bundles", at paths below the log's
 * prefix. A client (a monitor, a witness, a mirror) fetches the tiles it needs and computes
 * every root and proof itself, with any tlog-tiles implementation, instead of trusting proofs
 * the log computed for it.
 *
 * A tile of level L and index N holds, for i from 0 to W-1 (W = 256 for a full tile), the
 * Merkle Tree Hash of leaves (N*256 + i) * 256^L .. (N*256 + i + 1) * 256^L - 1: leaf hashes at
 * level 0, the roots of complete subtrees of 256^L leaves above. An entry bundle of index N
 * holds leaves N*256 .. N*256 + W-1, each as a big-endian uint16 length and the leaf's bytes.
 */
export type { TileRef };

export const TILE_WIDTH = 256;
/** log2(TILE_WIDTH): a tile of level L holds nodes of tree level 8L. */
export const TILE_HEIGHT = 8;
const MAX_LEVEL = 63;
const MAX_ENTRY_BYTES = 0xffff;


export type TilePathParse = { tile: TileRef } | { reason: string };

const LEVEL = /^(?:0|[1-9][0-9]?)$/;
const INNER_GROUP = /^x[0-9]{3}$/;
const LAST_GROUP = /^[0-9]{3}$/;
const PARTIAL_WIDTH = /^[1-9][0-9]{0,2}$/;

/**
 * Reads `<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]` (the path below `<prefix>/tile/`) in the one
 * spelling the specification allows: no leading zeros in L and W, N in zero-padded groups of
 * three digits with all but the last prefixed by "x". Any other spelling names no tile, so two
 * paths never serve the same bytes.
 */
export function parseTilePath(path: string): TilePathParse {
  const parts = path.split('/');
  const levelText = parts.shift()!;
  let level: TileRef['level'];
  if (levelText === 'entries') level = 'entries';
  else if (LEVEL.test(levelText) && Number(levelText) <= MAX_LEVEL) level = Number(levelText);
  else return { reason: `the level must be "entries" or a number from 0 to ${MAX_LEVEL} without leading zeros, not "${levelText}"` };

  let width = TILE_WIDTH;
  if (parts.length >= 2 && parts[parts.length - 2]!.endsWith('.p')) {
    const widthText = parts.pop()!;
    if (!PARTIAL_WIDTH.test(widthText) || Number(widthText) >= TILE_WIDTH) return { reason: `a partial tile's width is a number from 1 to ${TILE_WIDTH - 1} without leading zeros, not "${widthText}"` };
    width = Number(widthText);
    parts[parts.length - 1] = parts[parts.length - 1]!.slice(0, -'.p'.length);
  }

  const last = parts.pop();
  if (last === undefined || !LAST_GROUP.test(last) || !parts.every((group) => INNER_GROUP.test(group)))
    return { reason: 'the index is written in groups of three digits, all but the last prefixed by "x" (1234067 is x001/x234/067)' };
  if (parts.length > 0 && parts[0] === 'x000') return { reason: 'the index has a leading group of zeros (x000)' };
  const index = Number([...parts.map((group) => group.slice(1)), last].join(''));
  if (!Number.isSafeInteger(index)) return { reason: 'the index is too large' };
  return { tile: { level, index, width } };
}

/** The path of a tile below `<prefix>/tile/`: the inverse of parseTilePath. */
export function tilePath(tile: TileRef): string {
  const digits = String(tile.index).padStart(3, '0');
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end).padStart(3, '0'));
  const index = groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
  return `${tile.level}/${index}${tile.width === TILE_WIDTH ? '' : `.p/${tile.width}`}`;
}

/** The leaves a tile (or bundle) spans: [first, first + count) of the tree's leaves. */
export function tileSpan(tile: TileRef): { firstLeaf: number; leaves: number } {
  const leavesPerHash = TILE_WIDTH ** (tile.level === 'entries' ? 0 : tile.level);
  return { firstLeaf: tile.index * TILE_WIDTH * leavesPerHash, leaves: tile.width * leavesPerHash };
}

/**
 * Whether the tree of `treeSize` leaves holds the whole tile: a full tile, or a partial tile of
 * this tree or of an earlier size of it (a partial tile never changes: a later one is wider).
 */
export function treeHolds(tile: TileRef, treeSize: number): boolean {
  const { firstLeaf, leaves } = tileSpan(tile);
  return firstLeaf + leaves <= treeSize;
}

/** What the tiles are read from: the hash of a complete subtree, by its tree level and index. */
export type SubtreeHashes = (treeLevel: number, index: number) => Uint8Array;

/** A tile of hashes (not entries): W hashes of 32 bytes. The caller checks treeHolds first. */
export function tileBytes(tile: TileRef & { level: number }, subtree: SubtreeHashes): Buffer {
  const bytes = Buffer.allocUnsafe(tile.width * 32);
  const treeLevel = tile.level * TILE_HEIGHT;
  for (let i = 0; i < tile.width; i++) bytes.set(subtree(treeLevel, tile.index * TILE_WIDTH + i), i * 32);
  return bytes;
}

/** An entry bundle: each entry's length (big-endian uint16), then its bytes. */
export function entryBundleBytes(entries: readonly Uint8Array[]): Buffer {
  const framed: Uint8Array[] = [];
  for (const entry of entries) {
    if (entry.length > MAX_ENTRY_BYTES) throw new RangeError(`an entry of a bundle is at most ${MAX_ENTRY_BYTES} bytes, not ${entry.length}`);
    const length = Buffer.allocUnsafe(2);
    length.writeUInt16BE(entry.length);
    framed.push(length, entry);
  }
  return Buffer.concat(framed);
}

/** The entries of a bundle, in order: what a client reads (and what the tests read back). */
export function readEntryBundle(bundle: Uint8Array): Buffer[] {
  const bytes = Buffer.from(bundle.buffer, bundle.byteOffset, bundle.length);
  const entries: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    if (at + 2 > bytes.length) throw new RangeError('an entry bundle ends inside a length');
    const length = bytes.readUInt16BE(at);
    if (at + 2 + length > bytes.length) throw new RangeError('an entry bundle ends inside an entry');
    entries.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}
