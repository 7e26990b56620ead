import type { JsonObject } from '../signing/rfc8785.ts';

/**
 * What the free routes and the paid answer read from the transparency log of signed results
 * (transparency/result-log.ts implements it). Hashes are lowercase hex.
 */
export type ResultLeafView = {
  key_family: string;
  key_id: string;
  sha256: string;
};

export type SignedCheckpoint = {
  origin: string;
  tree_size: number;
  root_hash: string;
  issued_at: number;
  key_id: string;
  /** The C2SP signed note, exactly as signed. */
  note: string;
};

export type InclusionAnswer = {
  leaf_index: number;
  tree_size: number;
  leaf: ResultLeafView;
  leaf_hash: string;
  audit_path: string[];
  root_hash: string;
};

export type ConsistencyAnswer = {
  first: number;
  second: number;
  first_root: string;
  second_root: string;
  path: string[];
};

/**
 * One tile of the C2SP tlog-tiles API (transparency/tlog-tiles.ts), or one entry bundle
 * (`level: 'entries'`): its level, its index within the level, and its width (256 when full).
 */
export type TileRef = {
  level: number | 'entries';
  index: number;
  width: number;
};

/** A witness of the result log's checkpoints (C2SP tlog-witness), as GET /v1/log shows it. */
export type WitnessStatus = {
  name: string;
  submission_url: string;
  /** The largest tree size this witness cosigned for the service since the service started. */
  cosigned_size: number | null;
  /** Why the last submission gave no cosignature, while that is the latest news from it. */
  problem?: string;
};

/** A signed result as the log's event holds it. */
export type LoggedResult = {
  leaf_index: number;
  operation: string;
  key_family: string;
  key_id: string;
  record: JsonObject;
  sha256: string;
  ed25519Sig: string;
  signed_at: number;
};

export interface ResultLogReader {
  /** The first checkpoint signed with this log key: where a key rotation shows in the log. */
  firstCheckpointSignedBy(keyId: string): Promise<SignedCheckpoint | undefined>;
  /** The signed result of this digest, read from the event log; undefined when not logged. */
  signedResult(sha256: string): Promise<LoggedResult | undefined>;
  size(): number;
  /** Why the log has stopped folding results for now (its store's disk is full), while it has. */
  pausedBecause(): string | undefined;
  latestCheckpoint(): SignedCheckpoint | undefined;
  /** The index of this result's leaf once the log has folded it in: the leaf of its ResultSigned event at `position` (the digest must match), else the first with this digest. */
  leafIndexOf(sha256: string, position?: bigint): number | undefined;
  /** Resolves true once every event up to `position` is folded in; false on timeout. */
  caughtUpTo(position: bigint, timeoutMs: number): Promise<boolean>;
  /** Undefined when the result is not in the tree of that size (default: the latest checkpoint's). */
  inclusion(sha256: string, treeSize?: number, leafIndex?: number): InclusionAnswer | undefined;
  /** Whether leaf `leafIndex` is in the log and is a leaf of this digest. */
  holdsAt(leafIndex: number, sha256: string): boolean;
  /** Throws RangeError unless 1 <= first <= second <= size(). */
  consistency(first: number, second: number): ConsistencyAnswer;
  /** The verified witness cosignature lines (each ending in a newline) for the tree of this size, to append to its checkpoint's note. */
  witnessCosignatures(treeSize: number): string[];
  witnessStatus(): WitnessStatus[];
  /** The bytes of a tile or entry bundle of the latest checkpoint's tree (or an earlier size of it); undefined when that tree does not hold it. */
  tile(tile: TileRef): Buffer | undefined;
}
