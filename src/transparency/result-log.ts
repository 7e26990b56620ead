import { rmSync } from 'node:fs';
import { freeDiskBytes } from '../free-disk-space.ts';
import type { Logger } from 'pino';
import type { EventStore, RecordedEvent, Subscription } from '../events/port.ts';
import { PAYMENT_EVENT_TYPES, resultSignedSchema } from '../payments/saga/events.ts';
import type { Keyring } from '../signing/keyring.ts';
import { signCheckpoint, type NoteSigner } from './c2sp-checkpoint.ts';
import { CHECKPOINT_ISSUED, checkpointIssuedSchema, RESULT_LOG_STREAM, type CheckpointIssued } from './events.ts';
import { MerkleLog } from '../signing/merkle-log.ts';
import { resultLeafBytes, resultLeafHash, type ResultLeaf } from './result-leaf.ts';
import { entryBundleBytes, tileBytes, tileSpan, treeHolds } from './tlog-tiles.ts';
import { leafHash } from '../signing/rfc6962-merkle.ts';
import type { ResultLogReader, TileRef } from '../kernel/result-log-port.ts';
import { LeafStore, type StoredLeaf } from './leaf-store.ts';
import { startWitnessing } from './tlog-witness.ts';
import type { Witness } from './witness-list.ts';
import { eventId } from '../events/event-ids.ts';
import { dataMembers } from '../events/unparsed-event-data.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

export interface ResultLog extends ResultLogReader {
  latestCheckpoint(): CheckpointIssued | undefined;
  /** Signs and records a checkpoint of the current tree now, if it grew since the last one. */
  issueCheckpoint(): Promise<CheckpointIssued | undefined>;
  /** Resolves once no checkpoint is on its way to a witness. */
  witnessesSettled(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A paid answer waits briefly for its leaf when the log is live: it folds an event moments after
 * its append. Further behind than this, the log is catching up after a start (it folds the whole
 * event log in memory), and waiting would only hold the answer for nothing: it goes at once,
 * without the leaf index, which the proof route finds by the result's sha256 all the same.
 */
export const CATCH_UP_LAG_EVENTS = 10_000n;

/**
 * How far the leaves waiting for the store's next commit may grow while its commits fail, and
 * when folding resumes after they were dropped. A waiting leaf holds about 430 bytes (heap and
 * buffers, measured over 100,000): the default bound is about 9 MB, ten seconds of paid calls
 * at 2,000 a second, and above the 16,384 leaves after which a working store commits at once.
 */
export interface UncommittedBound {
  leaves: number;
  /** Folding resumes once the store's disk has this much free. */
  resumeFreeBytes: number;
  /** How often the disk is looked at meanwhile. */
  roomCheckMs: number;
}

/**
 * What a leaf takes of a ResultSigned event: read without parsing the record beside them, which
 * for a record of megabytes held the event loop (unparsed-event-data.ts).
 */
const LEAF_MEMBERS = ['keyFamily', 'keyId', 'sha256'];

export const UNCOMMITTED_BOUND: UncommittedBound = { leaves: 20_000, resumeFreeBytes: 64 * 1024 * 1024, roomCheckMs: 5_000 };

/**
 * The transparency log of every signed result: a projection of the event log in which each
 * ResultSigned event, in global order, is one leaf. A result and its leaf are therefore written
 * in the same atomic append (the leaf is a function of the event), and the whole tree can be
 * rebuilt from the log and checked against the signed checkpoints, which is what the audit does.
 * Checkpoints are issued by this process, the log's sole writer, and recorded as events.
 */
export async function startResultLog(
  store: EventStore,
  keyring: Keyring,
  options: {
    checkpointIntervalMs: number;
    log: Logger;
    clock?: () => number;
    catchUpLagEvents?: bigint;
    /** The directory where the leaves and the tree are kept (leaf-store.ts); without it, in memory, and every start folds the whole event log. */
    leafStore?: string;
    /** While the store cannot commit: see UncommittedBound. */
    uncommitted?: Partial<UncommittedBound>;
    /** Asked to cosign each checkpoint (tlog-witness.ts). */
    witnesses?: readonly Witness[];
    witnessTimeoutMs?: number;
  },
): Promise<ResultLog> {
  const catchUpLag = options.catchUpLagEvents ?? CATCH_UP_LAG_EVENTS;
  const bound: UncommittedBound = { ...UNCOMMITTED_BOUND, ...options.uncommitted };
  const clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
  const dir = options.leafStore;
  const leaves = dir ? openLeafStore(dir, options.log) : LeafStore.inMemory();
  if (leaves.emptiedBecause) options.log.warn({}, `result log: its store was emptied (${leaves.emptiedBecause}); folding the event log again`);
  // A leaf's hash is not kept: it is a function of the leaf's key and digest, given again for
  // the few leaves a proof asks for.
  const leafHashAt = (leaf: number) => resultLeafHash(leafAt(leaf));
  let tree: MerkleLog;
  try {
    tree = new MerkleLog(leafHashAt, leaves, leaves.size);
  } catch (err) {
    // The store lacks a node its size promises (damaged): emptied, and the log folded again.
    options.log.warn({ error: (err as Error).message }, 'result log: its store is incomplete; folding the event log again');
    await leaves.reset();
    tree = new MerkleLog(leafHashAt, leaves, 0);
  }
  let position: bigint | undefined;
  const waiters = new Set<{ position: bigint; resolve(ok: boolean): void }>();

  const stored = await store.readStream(RESULT_LOG_STREAM, { direction: 'backwards', maxCount: 1 });
  let latest: { checkpoint: CheckpointIssued; revision: bigint } | undefined = stored[0] ? { checkpoint: checkpointIssuedSchema.parse(stored[0].data), revision: stored[0].revision } : undefined;
  // The origin names the log in every checkpoint: kept from the first checkpoint for the log's life.
  const origin = latest?.checkpoint.origin ?? `attestation-service/result-log/${keyring.publicKey('log').keyId}`;
  // The log key of the generation valid at signing: a rotation changes it between two checkpoints.
  const signerNow = (): NoteSigner & { keyId: string } => {
    const key = keyring.publicKey('log');
    return { name: origin, keyId: key.keyId, publicKey: Buffer.from(key.publicKeyHex, 'hex'), sign: (m) => Buffer.from(keyring.sign('log', m), 'hex') };
  };

  function fold(event: RecordedEvent): void {
    const data = dataMembers(event, LEAF_MEMBERS);
    if (typeof data.keyFamily !== 'string' || typeof data.keyId !== 'string' || typeof data.sha256 !== 'string') throw new Error(`ResultSigned ${event.id} lacks keyFamily, keyId or sha256`);
    const leafHash = resultLeafHash({ key_family: data.keyFamily, key_id: data.keyId, sha256: data.sha256 });
    leaves.append({ position: Number(event.position), sha256: Buffer.from(data.sha256, 'hex'), key: `${data.keyFamily} ${data.keyId}` });
    tree.appendLeafHash(leafHash);
  }

  const storedUpTo = leaves.lastLeafPosition === undefined ? undefined : BigInt(leaves.lastLeafPosition);
  if (storedUpTo !== undefined) {
    const problem = await storedLeavesProblem(storedUpTo);
    if (problem) {
      // A copy from another log, or a log restored from an older backup: folded again from this one.
      options.log.warn({ leaves: tree.size, problem }, `result log: the saved leaves do not match the event log (${problem}); folding it again`);
      await leaves.reset();
      await leaves.close();
      return startResultLog(store, keyring, options);
    }
    position = storedUpTo;
  }

  /** Whether the saved leaves belong to this event log: their last event is there, and they give the last signed root. */
  async function storedLeavesProblem(at: bigint): Promise<string | undefined> {
    try {
      return await leavesDisagreeWithLog(at);
    } catch (err) {
      return (err as Error).message; // an entry the store's size promises is missing
    }
  }

  async function leavesDisagreeWithLog(at: bigint): Promise<string | undefined> {
    let last: RecordedEvent | undefined;
    for await (const event of store.readAll({ ...(at > 0n ? { fromPosition: at - 1n } : {}), maxCount: 1 })) last = event;
    const sha256 = hex(leaves.leafAt(tree.size - 1).sha256);
    if (!last || last.position !== at || last.type !== PAYMENT_EVENT_TYPES.signed || dataMembers(last, ['sha256']).sha256 !== sha256)
      return `leaf ${tree.size - 1} is result ${sha256} at position ${at}, which the event log does not hold`;
    if (latest && tree.size >= latest.checkpoint.tree_size && hex(tree.root(latest.checkpoint.tree_size)) !== latest.checkpoint.root_hash)
      return `they do not give the root of the last signed checkpoint (size ${latest.checkpoint.tree_size})`;
    return undefined;
  }

  function advanced(at: bigint): void {
    position = at;
    for (const waiter of waiters)
      if (at >= waiter.position) {
        waiters.delete(waiter);
        waiter.resolve(true);
      }
  }

  const witnessing = startWitnessing(options.witnesses ?? [], {
    consistencyProof: (first, second) => tree.consistencyProof(first, second),
    log: options.log,
    ...(options.witnessTimeoutMs ? { timeoutMs: options.witnessTimeoutMs } : {}),
  });
  /**
   * The checkpoint a start finds is served until the next one: its cosignatures are asked for
   * again once the tree it signs is folded (a witness's 409 asks for a proof from its size).
   */
  let latestWitnessed = false;
  function witnessLatestOnce(): void {
    if (!latest || latestWitnessed || tree.size < latest.checkpoint.tree_size) return;
    latestWitnessed = true;
    witnessing.submit(latest.checkpoint);
  }
  witnessLatestOnce();

  /** Bumped when folding pauses: deliveries of the subscription before are ignored. */
  let generation = 0;
  let subscription = foldFrom(storedUpTo);
  /** Why folding is paused, while it is. */
  let paused: string | undefined;
  let roomCheck: NodeJS.Timeout | undefined;
  let stopped = false;

  function foldFrom(after: bigint | undefined): Subscription {
    const mine = ++generation;
    return store.subscribeToAll({
      ...(after !== undefined ? { fromPosition: after } : {}),
      eventTypes: [PAYMENT_EVENT_TYPES.signed],
      onEvent(event) {
        if (mine !== generation) return;
        fold(event);
        // The folded tree reaches the last signed checkpoint: it must give the same root.
        if (latest && tree.size === latest.checkpoint.tree_size) {
          checkAgainstLatest();
          witnessLatestOnce();
        }
        advanced(event.position);
        if (leaves.commitsFailing && leaves.uncommitted >= bound.leaves)
          pauseFolding().catch((err: Error) => options.log.error({ error: err.message }, 'result log: pausing failed'));
      },
      onPassed: (at) => {
        if (mine === generation) advanced(at);
      },
      onError: (err) => options.log.error({ error: err.message }, 'result log subscription failed'),
    });
  }

  /**
   * The store cannot commit (its disk is full) while the event log, elsewhere, takes paid calls:
   * the leaves it holds for the next commit would grow by one a call. At the bound, folding
   * stops, those leaves are dropped, and the log stands at its last commit until the disk has
   * room again; then it folds the same results again from the event log, which still holds them.
   * Meanwhile paid answers go without their leaf index and proofs cover what was committed.
   */
  async function pauseFolding(): Promise<void> {
    generation++;
    const committed = leaves.size - leaves.uncommitted;
    paused = `its store cannot be written (a full disk): the results from leaf ${committed} on are folded again from the event log once the disk has room; until then paid answers go without their leaf index`;
    options.log.error({ dir, dropped: leaves.uncommitted, resumeFreeBytes: bound.resumeFreeBytes }, `result log paused: ${paused}`);
    for (const waiter of waiters) waiter.resolve(false);
    waiters.clear();
    await subscription.close();
    if (stopped) return;
    await leaves.dropUncommitted();
    tree = new MerkleLog(leafHashAt, leaves, leaves.size);
    position = leaves.lastLeafPosition === undefined ? undefined : BigInt(leaves.lastLeafPosition);
    roomCheck = setInterval(() => {
      if (!diskHasRoom()) return;
      clearInterval(roomCheck);
      roomCheck = undefined;
      paused = undefined;
      options.log.info({ from: position?.toString() ?? 'the start' }, 'result log: its disk has room again; folding the event log from its last commit');
      subscription = foldFrom(position);
    }, bound.roomCheckMs);
    roomCheck.unref();
  }

  function diskHasRoom(): boolean {
    return !dir || (freeDiskBytes(dir) ?? 0) >= bound.resumeFreeBytes;
  }

  function checkAgainstLatest(): void {
    if (!latest) return;
    const { tree_size, root_hash } = latest.checkpoint;
    if (hex(tree.root(tree_size)) !== root_hash)
      options.log.error({ tree_size, root_hash, leaves: tree.size }, 'the results in the event log do not give the root of the last signed checkpoint: run the audit');
  }

  function waitFor(target: bigint, timeoutMs: number): Promise<boolean> {
    if (position !== undefined && position >= target) return Promise.resolve(true);
    if (paused) return Promise.resolve(false);
    if (target - (position ?? -1n) > catchUpLag) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = { position: target, resolve };
      waiters.add(waiter);
      setTimeout(() => {
        if (waiters.delete(waiter)) resolve(false);
      }, timeoutMs).unref();
    });
  }

  /**
   * The leaf of a result: the one of its ResultSigned event at `position` when given (one record
   * signed by two calls, such as two payers attesting the same claim, is two leaves), else the
   * first with its digest.
   */
  function leafIndexOf(sha256: string, position?: bigint): number | undefined {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
    if (position === undefined) return leaves.find(Buffer.from(sha256, 'hex'));
    const leaf = leaves.leafOfPosition(Number(position));
    return leaf !== undefined && holdsAt(leaf, sha256) ? leaf : undefined;
  }

  function holdsAt(leafIndex: number, sha256: string): boolean {
    return leafIndex < tree.size && leafAt(leafIndex).sha256 === sha256;
  }

  function leafAt(index: number): ResultLeaf {
    return resultLeafOf(leaves.leafAt(index));
  }

  /** Leaves first .. first+count-1, the committed ones read from the store together. */
  function leafRange(first: number, count: number): ResultLeaf[] {
    const committed = Math.max(0, Math.min(count, leaves.size - leaves.uncommitted - first));
    const read = committed > 0 ? leaves.leavesFrom(first, committed) : [];
    const range: ResultLeaf[] = read.map((leaf, i) => {
      if (!leaf) throw new Error(`leaf ${first + i} of the result log's store is damaged: run the audit`);
      return resultLeafOf(leaf);
    });
    for (let index = first + committed; index < first + count; index++) range.push(leafAt(index));
    return range;
  }

  /** A tile or entry bundle of the tree the latest checkpoint signed (C2SP tlog-tiles). */
  function tile(ref: TileRef): Buffer | undefined {
    const signedSize = latest?.checkpoint.tree_size ?? 0;
    if (!treeHolds(ref, Math.min(signedSize, tree.size))) return undefined;
    if (ref.level === 'entries' || ref.level === 0) {
      const { firstLeaf, leaves: count } = tileSpan(ref);
      const bytes = leafRange(firstLeaf, count).map(resultLeafBytes);
      return ref.level === 'entries' ? entryBundleBytes(bytes) : Buffer.concat(bytes.map(leafHash));
    }
    return tileBytes({ ...ref, level: ref.level }, (level, index) => tree.completeSubtree(level, index));
  }

  let issuing: Promise<CheckpointIssued | undefined> | undefined;
  const firstByKey = new Map<string, CheckpointIssued>();
  async function issue(): Promise<CheckpointIssued | undefined> {
    const size = tree.size;
    if (size === 0 || (latest && latest.checkpoint.tree_size >= size)) return undefined;
    const rootHash = hex(tree.root(size));
    const issuedAt = clock();
    const signer = signerNow();
    const checkpoint: CheckpointIssued = { origin, tree_size: size, root_hash: rootHash, issued_at: issuedAt, key_id: signer.keyId, note: signCheckpoint(signer, origin, size, rootHash, issuedAt) };
    const appended = await store.appendToStream(RESULT_LOG_STREAM, [{ id: checkpointEventId(origin, size), type: CHECKPOINT_ISSUED, data: checkpoint }], { expectedRevision: latest?.revision ?? 'no_stream' });
    latest = { checkpoint, revision: appended.nextExpectedRevision };
    latestWitnessed = true;
    witnessing.submit(checkpoint);
    return checkpoint;
  }
  const issueOnce = () => (issuing ??= issue().finally(() => (issuing = undefined)));

  /**
   * The first checkpoint signed by the log key `keyId`, in about log2(checkpoints) reads of one
   * event: a checkpoint is signed by the log key of its time and log keys only roll forward, so
   * the generations that signed the stream's checkpoints never fall along it. (The key-history
   * route asks this on every request until a new key has signed; a read of the whole stream each
   * time grew with the service's age.)
   */
  async function firstSignedBy(keyId: string): Promise<CheckpointIssued | undefined> {
    const generationOf = new Map(keyring.history().filter((key) => key.family === 'log').map((key) => [key.keyId, key.generation]));
    const wanted = generationOf.get(keyId);
    if (wanted === undefined) return undefined;
    const end = latest === undefined ? 0n : latest.revision + 1n;
    const checkpointAt = async (revision: bigint) => {
      const [event] = await store.readStream(RESULT_LOG_STREAM, { fromRevision: revision, maxCount: 1 });
      if (!event) throw new Error(`the result log's checkpoint ${revision} is missing from its stream`);
      return checkpointIssuedSchema.parse(event.data);
    };
    // The first revision whose signer is of the wanted generation or a later one lies in [low, high].
    let [low, high] = [0n, end];
    while (low < high) {
      const middle = (low + high) / 2n;
      // A key the history does not hold (a secret replaced since) signed before every key it holds.
      const signer = generationOf.get((await checkpointAt(middle)).key_id) ?? -1;
      if (signer >= wanted) high = middle;
      else low = middle + 1n;
    }
    if (low === end) return undefined;
    const found = await checkpointAt(low);
    return found.key_id === keyId ? found : undefined;
  }

  const timer = setInterval(() => {
    issueOnce().catch((err: Error) => options.log.warn({ error: err.message }, 'checkpoint not issued this round; the next round retries'));
  }, options.checkpointIntervalMs);
  timer.unref();

  return {
    size: () => tree.size,
    latestCheckpoint: () => latest?.checkpoint,
    leafIndexOf,
    caughtUpTo: waitFor,
    holdsAt,
    inclusion(sha256, treeSize, leafIndex) {
      const index = leafIndex !== undefined ? (holdsAt(leafIndex, sha256) ? leafIndex : undefined) : leafIndexOf(sha256);
      const size = treeSize ?? latest?.checkpoint.tree_size ?? 0;
      if (index === undefined || index >= size || size > tree.size) return undefined;
      return {
        leaf_index: index,
        tree_size: size,
        leaf: leafAt(index),
        leaf_hash: hex(tree.leafHashAt(index)),
        audit_path: tree.inclusionProof(index, size).map(hex),
        root_hash: hex(tree.root(size)),
      };
    },
    consistency(first, second) {
      return { first, second, first_root: hex(tree.root(first)), second_root: hex(tree.root(second)), path: tree.consistencyProof(first, second).map(hex) };
    },
    tile,
    witnessCosignatures: (treeSize) => witnessing.cosignatures(treeSize),
    witnessStatus: () => witnessing.status(),
    witnessesSettled: () => witnessing.settled(),
    issueCheckpoint: issueOnce,
    async firstCheckpointSignedBy(keyId) {
      const known = firstByKey.get(keyId);
      if (known) return known;
      const first = await firstSignedBy(keyId);
      if (first) firstByKey.set(keyId, first);
      return first;
    },
    async signedResult(sha256) {
      const index = leafIndexOf(sha256);
      if (index === undefined) return undefined;
      const position = BigInt(leaves.leafAt(index).position);
      for await (const event of store.readAll({ fromPosition: position - 1n, maxCount: 1 })) {
        if (event.position !== position || event.type !== PAYMENT_EVENT_TYPES.signed) break;
        const signed = resultSignedSchema.parse(event.data);
        return { leaf_index: index, operation: signed.operation, key_family: signed.keyFamily, key_id: signed.keyId, record: signed.record, sha256: signed.sha256, ed25519Sig: signed.ed25519Sig, signed_at: signed.signedAt };
      }
      throw new Error(`the event of leaf ${index} is not at position ${position}`);
    },
    pausedBecause: () => paused,
    async stop() {
      clearInterval(timer);
      witnessing.stop();
      clearInterval(roomCheck);
      stopped = true;
      generation++;
      await subscription.close();
      await leaves.close();
      for (const waiter of waiters) waiter.resolve(false);
      waiters.clear();
    },
  };
}

/** A stored leaf as the leaf the tree commits to: its key is `${keyFamily} ${keyId}`. */
function resultLeafOf(leaf: StoredLeaf): ResultLeaf {
  const [key_family, key_id] = leaf.key.split(' ') as [string, string];
  return { key_family, key_id, sha256: hex(leaf.sha256) };
}

/** The store at `dir`; one that cannot be opened (damaged) is deleted and the log folded again into a new one. */
function openLeafStore(dir: string, log: Logger): LeafStore {
  const onError = (err: Error) => log.error({ error: err.message }, 'result log: its store could not be written');
  try {
    return LeafStore.open(dir, onError);
  } catch (err) {
    log.warn({ dir, error: (err as Error).message }, 'result log: its store cannot be opened; folding the event log again into a new one');
    rmSync(dir, { recursive: true, force: true });
    return LeafStore.open(dir, onError);
  }
}

/** Deterministic: a checkpoint of the same size is the same event, so a retried append is idempotent. */
const checkpointEventId = (origin: string, size: number): string => eventId(`${origin}#${size}`, CHECKPOINT_ISSUED);
