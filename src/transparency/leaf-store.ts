import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import { BOOT_ID, openCacheEnvironment, openedAfterMachineCrash, recordCleanClose, type OpenedBy } from '../events/file-log/lmdb-boot-guard.ts';
import { TurnWrites } from '../events/file-log/lmdb-turn.ts';
import { DIGEST_KEY_BYTES, DigestRuns, type DigestEntry } from './digest-runs.ts';
import { damaged, LeafRecords, RECORD_PAYLOAD_BYTES } from './leaf-records.ts';
import type { NodeLevels } from '../signing/merkle-log.ts';

/** One leaf of the result log: a signed result, by its digest and signing key, and where its event is. */
export interface StoredLeaf {
  /** Position of the leaf's ResultSigned event in the event log. */
  position: number;
  sha256: Uint8Array;
  /** `${keyFamily} ${keyId}` */
  key: string;
}

/**
 * Bumped when the layout below changes: a store of another format is emptied and its leaves
 * folded again from the event log. 3: the digest lookup keyed by prefix, its leaves in the value.
 * 4: inner nodes from level LOWEST_STORED_LEVEL up. 5: leaves in a file of records beside LMDB's.
 * 6: the digest lookup in sorted runs beside them (digest-runs.ts), no longer in LMDB.
 */
const FORMAT = 6;
/** A leaf as recorded: sha256 | position (u64) | key number (u32). */
const LEAF_BYTES = RECORD_PAYLOAD_BYTES;
/** The leaves' file, in the store's directory. */
const RECORDS_FILE = 'leaves';
/** The digest lookup's runs, in the store's directory. */
const RUNS_DIRECTORY = 'digest-runs';
/** Leaves read from the file at a time when a start indexes the digests its runs lack. */
const READ_AT_OPEN = 4_096;
/**
 * Inner nodes are stored from this level up (subtrees of 16 leaves and more): one node every 16
 * leaves instead of one a leaf. A proof hashes the smaller subtrees it needs again from their
 * leaves, at most 15 leaves for its lowest four steps.
 */
const LOWEST_STORED_LEVEL = 4;
/** Appended leaves wait in memory at most this long, or until this many, before one commit. */
const FLUSH_MS = 100;
const FLUSH_LEAVES = 16_384;
/** After a failed commit (a full disk), the next waits this long; the tail stays in memory meanwhile. */
const RETRY_MS = 5_000;
/**
 * Committed leaves kept after they were read back from the file. The same result signed again
 * within its second (the same claim attested by many callers at once) looks its first leaf up at
 * every append and answer: without these, a file read each time.
 */
const RECENTLY_READ_LEAVES = 256;

interface StoreState {
  format: number;
  /** Leaves 0 .. leaves-1 are committed, with every node they complete. */
  leaves: number;
  /** The position of leaf leaves-1's event: the result log folds from the event after it. */
  lastPosition: number;
}


/** The leaves appended since the last commit, with what they add to the tree and the digest lookup. */
class Tail {
  leaves: StoredLeaf[] = [];
  /** nodes[level][i] is node floor(committed / 2^level) + i of that level. */
  nodes: Buffer[][] = [];
  /** Digest key (hex) -> the tail's leaves first holding a digest that starts with it, in order. */
  byDigestKey = new Map<string, number[]>();
}

/**
 * The result log's leaves, the tree's inner nodes and the lookup from a result's digest to its
 * leaf, on disk (the leaves in a file of records, the inner nodes in an LMDB environment, the
 * lookup in sorted runs: digest-runs.ts), so that neither the service's memory nor its start-up
 * grows with the log: a start reads the last commit's size and folds only the events after it.
 * (Before, a start loaded every leaf into memory, about 89 bytes a result, and hashed every
 * inner node again: 0.8 s and 30 MB at 340,000 results.)
 *
 * Appends are kept in memory (the tail) and committed together every FLUSH_MS: the leaves'
 * records first, then nodes and the size that covers them in one transaction, then the digest
 * runs now due; the digests of committed leaves not in a run yet stay in memory (a run's worth at
 * most), and a start reads them again from the leaves' file. Reads look in the tail first. The store is a cache of the event log, never ahead of it (a leaf is
 * folded from a durable event): whatever it loses, the result log folds again. As with the event
 * log's index, commits are not fsynced, and a store left open by an earlier boot of the machine
 * is emptied and folded again (lmdb-boot-guard.ts).
 *
 * Without a path the store keeps everything in memory (its tail is never committed): for tests.
 */
export class LeafStore implements NodeLevels {
  readonly lowestLevel = LOWEST_STORED_LEVEL;
  private committed: number;
  private lastPosition: number | undefined;
  private tail = new Tail();
  private readonly keys: string[] = [];
  private readonly keyNumbers = new Map<string, number>();
  private committedKeys: number;
  /** Committed leaves read back lately (they never change once committed); emptied when full and at reset. */
  private readonly recentlyRead = new Map<number, StoredLeaf>();
  /**
   * Digest key (hex) -> the committed leaves not in a digest run yet (from the runs' end on) that
   * first hold a digest starting with it, in order: written as a run once they are a run's worth.
   */
  private unrun = new Map<string, number[]>();
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerIsSoon = false;
  /** The last commit failed: the next is tried after RETRY_MS. */
  private failing = false;
  /** The last digest run could not be written (said once until one is). */
  private runsFailing = false;
  private closed = false;

  private constructor(
    private readonly dbs: StoreTables | undefined,
    private readonly onError: (error: Error) => void,
    /** Why the store was emptied at open, if it was: it was left open by an earlier boot, or lacks leaves its size covers. */
    readonly emptiedBecause: string | undefined,
    private readonly readOnly = false,
  ) {
    const state = dbs?.meta.get('state') as StoreState | undefined;
    this.committed = state?.leaves ?? 0;
    this.lastPosition = state?.lastPosition;
    for (const { key, value } of dbs?.keys.getRange() ?? []) this.rememberKey(value, key);
    this.committedKeys = this.keys.length;
  }

  static inMemory(): LeafStore {
    return new LeafStore(undefined, () => {}, undefined);
  }

  /**
   * Opens (creating) the store at `dir`, emptied first when of another format, left open by an
   * earlier boot or short of the leaves its size covers; throws when its LMDB file is damaged
   * (the caller deletes the store and folds again).
   */
  static open(dir: string, onError: (error: Error) => void, options: { digestRunLeaves?: number } = {}): LeafStore {
    mkdirSync(dir, { recursive: true });
    const env = openCacheEnvironment(dir, { readOnly: false });
    const runs = DigestRuns.open(join(dir, RUNS_DIRECTORY), { readOnly: false, ...(options.digestRunLeaves ? { runLeaves: options.digestRunLeaves } : {}) });
    const dbs = openTables(env, LeafRecords.open(join(dir, RECORDS_FILE)), runs);
    const state = dbs.meta.get('state') as StoreState | undefined;
    const emptiedBecause = openedAfterMachineCrash(dbs.meta)
      ? 'it was left open by an earlier boot of the machine'
      : state && state.format === FORMAT && dbs.records.count < state.leaves
        ? `its file holds ${dbs.records.count} leaves, not the ${state.leaves} its size covers`
        : undefined;
    if (emptiedBecause || (state && state.format !== FORMAT)) clearTables(dbs);
    else {
      // Records beyond the size were written for a commit that did not happen; so were runs.
      dbs.records.cutTo(state?.leaves ?? 0);
      dbs.digestRuns.cutTo(state?.leaves ?? 0);
    }
    const store = new LeafStore(dbs, onError, emptiedBecause);
    // The leaves beyond the runs are read now to list their digests: one damaged means a damaged store.
    const damagedLeaf = store.indexLeavesBeyondRuns(dbs);
    if (damagedLeaf === undefined) return store;
    clearTables(dbs);
    return new LeafStore(dbs, onError, damaged(damagedLeaf));
  }

  /**
   * The store at `dir` as an auditor reads it, beside the service or after it: what its last
   * commit holds, nothing changed. Undefined when there is none, or one of another format.
   */
  static openForReading(dir: string): LeafStore | undefined {
    if (!existsSync(join(dir, 'data.mdb')) || !existsSync(join(dir, RECORDS_FILE))) return undefined;
    const env = openCacheEnvironment(dir, { readOnly: true });
    const dbs = openTables(env, LeafRecords.open(join(dir, RECORDS_FILE), { readOnly: true }), DigestRuns.open(join(dir, RUNS_DIRECTORY), { readOnly: true }));
    const state = dbs.meta.get('state') as StoreState | undefined;
    if (!state || state.format !== FORMAT) {
      void dbs.digestRuns.close();
      void env.close();
      dbs.records.close();
      return undefined;
    }
    const store = new LeafStore(dbs, () => {}, undefined, true);
    // A damaged leaf is left out of the lookup here: an auditor finds it when it reads the leaf.
    store.indexLeavesBeyondRuns(dbs);
    return store;
  }

  get size(): number {
    return this.committed + this.tail.leaves.length;
  }

  /** Leaves appended since the last commit: they are held in memory until it. */
  get uncommitted(): number {
    return this.tail.leaves.length;
  }

  /** Whether the last commit failed (a full disk): the next is tried after RETRY_MS. */
  get commitsFailing(): boolean {
    return this.failing;
  }

  /**
   * Forgets the leaves not committed yet, and the nodes and lookups they added: the store is
   * back at its last commit. Whoever folded them folds them again from the event log.
   */
  async dropUncommitted(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerIsSoon = false;
    // Signing keys first seen in the dropped leaves stay numbered: the next commit writes them.
    this.tail = new Tail();
    // Nothing waits for a commit now: the next leaves are committed as usual, and say whether the disk has room.
    this.failing = false;
  }

  /** The position of the last leaf's event, or undefined for an empty store. */
  get lastLeafPosition(): number | undefined {
    return this.tail.leaves.at(-1)?.position ?? this.lastPosition;
  }

  /**
   * Adds the leaf and returns its index. Its digest is looked up by `find` unless an earlier leaf
   * not yet in a digest run has it: the same result signed again (the same request within the
   * second of its timestamp) adds nothing to the lookup while its first leaf is in memory, so
   * repeats add at most one entry a run. (The runs are not read here: a read of each run at every
   * append would cost what the runs save.)
   */
  append(leaf: StoredLeaf): number {
    if (this.readOnly) throw new Error('the result log store is open for reading only');
    const index = this.size;
    const key = digestKeyHex(leaf.sha256);
    if (this.firstInMemory(key, leaf.sha256) === undefined) addUnder(this.tail.byDigestKey, key, index);
    this.rememberKey(leaf.key);
    this.tail.leaves.push({ position: leaf.position, sha256: Buffer.from(leaf.sha256), key: leaf.key });
    this.scheduleFlush();
    return index;
  }

  leafAt(index: number): StoredLeaf {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) throw new RangeError(`leaf ${index} is outside a log of ${this.size}`);
    if (index >= this.committed) return this.tail.leaves[index - this.committed]!;
    let leaf = this.recentlyRead.get(index);
    if (!leaf) {
      const read = this.leafFrom(this.dbs!.records.read(index));
      leaf = { ...read, sha256: Buffer.from(read.sha256) };
      if (this.recentlyRead.size >= RECENTLY_READ_LEAVES) this.recentlyRead.clear();
      this.recentlyRead.set(index, leaf);
    }
    return leaf;
  }

  /** Committed leaves `from` .. from+count-1, read together (an audit reads them all in order); undefined for a damaged one. */
  leavesFrom(from: number, count: number): Array<StoredLeaf | undefined> {
    if (!this.dbs || from < 0 || from + count > this.committed) throw new RangeError(`leaves ${from} to ${from + count - 1} are not all committed (${this.committed} are)`);
    return this.dbs.records.readMany(from, count).map((bytes) => bytes && this.leafFrom(bytes));
  }

  private leafFrom(bytes: Buffer): StoredLeaf {
    return { sha256: bytes.subarray(0, 32), position: Number(bytes.readBigUInt64BE(32)), key: this.keys[bytes.readUInt32BE(40)]! };
  }

  /**
   * The leaf of the ResultSigned event at `position`: leaves are folded in the order of their
   * events, so a binary search, the tail first (the leaf a paid answer asks for was just folded).
   */
  leafOfPosition(position: number): number | undefined {
    const inTail = this.tail.leaves.length > 0 && this.tail.leaves[0]!.position <= position;
    let low = inTail ? this.committed : 0;
    let high = (inTail ? this.size : this.committed) - 1;
    if (!inTail) {
      // Committed since it was folded, most likely: step back from the newest, doubling, so that
      // a leaf committed a moment ago costs a few reads rather than a search of the whole store.
      let step = 1;
      for (; high - step >= low && this.leafAt(high - step).position > position; step *= 2) high -= step;
      low = Math.max(low, high - step);
    }
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = this.leafAt(middle).position;
      if (at === position) return middle;
      if (at < position) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** The first leaf whose result has this digest: the runs hold the oldest leaves, then the committed ones after them, then the tail. */
  find(sha256: Uint8Array): number | undefined {
    if (this.dbs) for (const leaf of this.dbs.digestRuns.leavesUnder(sha256)) if (leaf < this.committed && sameBytes(this.leafAt(leaf).sha256, sha256)) return leaf;
    return this.firstInMemory(digestKeyHex(sha256), sha256);
  }

  /** The first leaf with this digest among those not in a digest run yet. */
  private firstInMemory(key: string, sha256: Uint8Array): number | undefined {
    for (const leaf of this.unrun.get(key) ?? []) if (sameBytes(this.leafAt(leaf).sha256, sha256)) return leaf;
    for (const leaf of this.tail.byDigestKey.get(key) ?? []) if (sameBytes(this.leafAt(leaf).sha256, sha256)) return leaf;
    return undefined;
  }

  /**
   * At a start: the committed leaves beyond the runs' end (a run's worth at most, unless a crash
   * or a lost run left more), read from the file and listed, or written as runs. Returns the
   * first damaged leaf, if one is (left out of the lookup).
   */
  private indexLeavesBeyondRuns(dbs: StoreTables): number | undefined {
    let firstDamaged: number | undefined;
    for (let from = dbs.digestRuns.indexedTo; from < this.committed; from += READ_AT_OPEN) {
      const count = Math.min(READ_AT_OPEN, this.committed - from);
      dbs.records.readMany(from, count).forEach((bytes, i) => {
        if (!bytes) {
          firstDamaged ??= from + i;
          return;
        }
        const sha256 = bytes.subarray(0, 32);
        const key = digestKeyHex(sha256);
        if (this.firstInMemory(key, sha256) === undefined) addUnder(this.unrun, key, from + i);
      });
      if (!this.readOnly) this.writeDueRuns(dbs.digestRuns);
    }
    return firstDamaged;
  }

  /** Writes the committed leaves listed beyond the runs as runs, a run's worth at a time. */
  private writeDueRuns(runs: DigestRuns): void {
    while (this.committed - runs.indexedTo >= runs.runLeaves) {
      const from = runs.indexedTo;
      const to = from + runs.runLeaves;
      const entries: DigestEntry[] = [];
      const later = new Map<string, number[]>();
      for (const [key, leaves] of this.unrun) {
        const digest = Buffer.from(key, 'hex');
        for (const leaf of leaves) {
          if (leaf < to) entries.push({ digest, leaf });
          else addUnder(later, key, leaf);
        }
      }
      runs.add(from, to, entries);
      this.unrun = later;
    }
  }

  push(level: number, index: number, hash: Uint8Array): void {
    const first = Math.floor(this.committed / 2 ** level);
    const nodes = (this.tail.nodes[level] ??= []);
    if (index !== first + nodes.length) throw new RangeError(`node ${index} of level ${level} pushed after ${first + nodes.length} nodes`);
    nodes.push(Buffer.from(hash));
  }

  at(level: number, index: number): Uint8Array {
    const first = Math.floor(this.committed / 2 ** level);
    if (index >= first) {
      const node = this.tail.nodes[level]?.[index - first];
      if (!node) throw new RangeError(`node ${index} of level ${level} is not in the tree`);
      return node;
    }
    const node = this.dbs?.nodes.get(nodeKey(level, index));
    if (!node || node.length !== 32) throw new Error(`node ${index} of level ${level} is missing from the result log's store`);
    return node;
  }

  /** The digest lookup's runs, for an audit to check against the leaves; none for a store in memory. */
  get digestRuns(): Pick<DigestRuns, 'ranges' | 'entriesOf'> | undefined {
    return this.dbs?.digestRuns;
  }

  /** Resolves once the digest lookup has merged what it has to merge (merges run in the background). */
  async digestRunsMerged(): Promise<void> {
    await this.dbs?.digestRuns.settled();
  }

  /** Commits the tail now (and waits for it), as a stop does. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerIsSoon = false;
    if (!this.dbs || this.tail.leaves.length === 0) return;
    this.flushing = this.commitTail(this.dbs).finally(() => {
      this.flushing = undefined;
      // Leaves appended while the commit ran wait for the next one.
      if (this.tail.leaves.length > 0) this.scheduleFlush();
    });
    await this.flushing;
  }

  /** Forgets every leaf: they do not belong to this event log. */
  async reset(): Promise<void> {
    await this.flush();
    this.tail = new Tail();
    this.unrun = new Map();
    this.committed = 0;
    this.recentlyRead.clear();
    this.lastPosition = undefined;
    if (this.dbs) clearTables(this.dbs);
    this.keys.length = 0;
    this.keyNumbers.clear();
    this.committedKeys = 0;
  }

  /** Commits the tail, records the clean close and closes. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.readOnly && this.dbs) {
      await this.dbs.digestRuns.close();
      await this.dbs.env.close();
      this.dbs.records.close();
      return;
    }
    // One more try after a failed commit; what a failing one leaves, the next start folds again.
    this.failing = false;
    while (this.flushing || (this.dbs && !this.failing && this.tail.leaves.length > 0)) await this.flush();
    if (this.timer) clearTimeout(this.timer);
    if (!this.dbs) return;
    try {
      // Unrecorded (a full disk), the store is trusted again by this boot of the machine and emptied after a reboot.
      if (!this.failing) await recordCleanClose(this.dbs.env, this.dbs.meta);
    } catch (err) {
      this.onError(new Error(`its clean close could not be recorded: ${(err as Error).message}`, { cause: err }));
    }
    await this.dbs.digestRuns.close();
    await this.dbs.env.close();
    this.dbs.records.close();
  }

  private rememberKey(key: string, number = this.keys.length): void {
    if (this.keyNumbers.has(key)) return;
    this.keys[number] = key;
    this.keyNumbers.set(key, number);
  }

  /**
   * Never commits from within an append: the tree pushes the nodes a leaf completes after the
   * leaf, and a commit must cover them.
   */
  private scheduleFlush(): void {
    if (!this.dbs || this.closed || this.flushing) return;
    const soon = this.tail.leaves.length >= FLUSH_LEAVES && !this.failing;
    if (this.timer && (!soon || this.timerIsSoon)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerIsSoon = soon;
    this.timer = setTimeout(() => void this.flush(), soon ? 0 : this.failing ? RETRY_MS : FLUSH_MS).unref();
  }

  /**
   * Writes the tail's leaves, the nodes they complete, new signing keys and the size covering
   * them, in one transaction (puts of one turn commit together, the size last); then drops what
   * was committed from the tail, and writes the digest runs now due (a run never runs ahead of
   * the size). Leaves appended meanwhile stay in the tail.
   */
  private async commitTail(dbs: StoreTables): Promise<void> {
    const from = this.committed;
    const to = this.size;
    const tail = this.tail;
    const turn = new TurnWrites();
    try {
      // Before the commit that covers them: the file is never behind the size (a process crash
      // leaves both in the page cache; where commits are synced, so is the file).
      dbs.records.write(from, tail.leaves.slice(0, to - from).map((leaf) => this.leafBytes(leaf)), BOOT_ID === undefined);
      for (let level = this.lowestLevel; 2 ** level <= to; level++) {
        const first = Math.floor(from / 2 ** level);
        const nodes = tail.nodes[level] ?? [];
        const end = Math.min(Math.floor(to / 2 ** level), first + nodes.length);
        // The tail's nodes are its own copies (push), never changed: put as they are.
        for (let index = first; index < end; index++) turn.add(dbs.nodes.put(nodeKey(level, index), nodes[index - first]!));
      }
      const keyCount = this.keys.length;
      for (let number = this.committedKeys; number < keyCount; number++) turn.add(dbs.keys.put(number, this.keys[number]!));
      const lastPosition = tail.leaves[to - from - 1]!.position;
      turn.add(dbs.meta.put('state', { format: FORMAT, leaves: to, lastPosition } satisfies StoreState));
      await turn.committed();
      this.failing = false;
      this.committedKeys = keyCount;
      this.lastPosition = lastPosition;
      this.dropCommitted(from, to);
    } catch (err) {
      // A full disk: the store keeps its last commit and the tail stays in memory, the commit is
      // tried again later, and whatever a stop leaves uncommitted the next start folds from the
      // event log. The file log shares the disk and takes no appends meanwhile; EventStoreDB
      // may, and then the tail grows by a leaf a paid call until the result log drops it
      // (dropUncommitted) and folds it again once the disk has room.
      this.failing = true;
      this.onError(new Error(`a commit failed (${(err as Error).message}): the new leaves stay in memory and the commit is tried again in ${RETRY_MS / 1000} s`, { cause: err }));
      return;
    }
    try {
      this.writeDueRuns(dbs.digestRuns);
      this.runsFailing = false;
    } catch (err) {
      // A full disk: the leaves stay listed in memory, and their runs are tried again after each commit (said once until one works).
      if (!this.runsFailing) this.onError(new Error(`a digest run could not be written (${(err as Error).message}): its leaves stay listed in memory until one can`, { cause: err }));
      this.runsFailing = true;
    }
  }

  private dropCommitted(from: number, to: number): void {
    const old = this.tail;
    const next = new Tail();
    next.leaves = old.leaves.slice(to - from);
    next.nodes = old.nodes.map((nodes, level) => nodes.slice(Math.floor(to / 2 ** level) - Math.floor(from / 2 ** level)));
    // The committed leaves' digests join those waiting for a run; the rest stay with the tail.
    for (const [key, leaves] of old.byDigestKey) for (const leaf of leaves) addUnder(leaf < to ? this.unrun : next.byDigestKey, key, leaf);
    this.tail = next;
    this.committed = to;
  }

  private leafBytes(leaf: StoredLeaf): Buffer {
    const bytes = Buffer.allocUnsafe(LEAF_BYTES);
    bytes.set(leaf.sha256, 0);
    bytes.writeBigUInt64BE(BigInt(leaf.position), 32);
    bytes.writeUInt32BE(this.keyNumbers.get(leaf.key)!, 40);
    return bytes;
  }
}

interface StoreTables {
  env: RootDatabase;
  meta: Database<StoreState | OpenedBy, string>;
  /** Leaf index -> LEAF_BYTES, in a file of its own. */
  records: LeafRecords;
  /** The leaves by their digest's first DIGEST_KEY_BYTES, in sorted runs of their own. */
  digestRuns: DigestRuns;
  /** nodeKey(level, index) -> the 32-byte hash of that complete subtree (levels from 1). */
  nodes: Database<Buffer, Buffer>;
  /** Key number -> `${keyFamily} ${keyId}`: signing keys repeat across millions of leaves. */
  keys: Database<string, number>;
}

function openTables(env: RootDatabase, records: LeafRecords, digestRuns: DigestRuns): StoreTables {
  return {
    env,
    meta: env.openDB<StoreState | OpenedBy, string>({ name: 'meta' }),
    records,
    digestRuns,
    nodes: env.openDB<Buffer, Buffer>({ name: 'nodes', keyEncoding: 'binary', encoding: 'binary' }),
    keys: env.openDB<string, number>({ name: 'keys', keyEncoding: 'uint32' }),
  };
}

/**
 * Empties every table, the size first: a crash half way leaves a store that says it holds
 * nothing. Which boot opened it stays: it still guards what is written next.
 */
function clearTables(dbs: StoreTables): void {
  dbs.meta.removeSync('state');
  dbs.records.cutTo(0);
  dbs.digestRuns.clear();
  dbs.nodes.clearSync();
  // The digest lookup of stores before format 6, if this is one: its pages go back to LMDB.
  dbs.env.openDB({ name: 'digests' }).dropSync();
  dbs.keys.clearSync();
}

function nodeKey(level: number, index: number): Buffer {
  const key = Buffer.allocUnsafe(5);
  key[0] = level;
  key.writeUInt32BE(index, 1);
  return key;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

const digestKeyHex = (sha256: Uint8Array): string => Buffer.from(sha256.buffer, sha256.byteOffset, DIGEST_KEY_BYTES).toString('hex');

function addUnder(lists: Map<string, number[]>, key: string, leaf: number): void {
  const under = lists.get(key);
  if (under) under.push(leaf);
  else lists.set(key, [leaf]);
}

