import type { JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalBytes } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

/**
 * The memory chain: each version of one payer's (agent_id, key) store names the stateHash of
 * the version before it, so that any edit to a past version breaks every later link.
 *
 * stateHash = SHA-256 over the RFC 8785 form of the version without its stateHash member.
 * Version 1 links to GENESIS_STATE_HASH (64 zeros): a chain always starts from a fixed point,
 * and a verifier needs no special case for the first link.
 *
 * Ruleset 2 adds `owner`, the payer whose store it is, to every version (and so to what its
 * stateHash covers): two payers' chains of one (agent_id, key) never share a hash. Versions of
 * ruleset 1, written before stores were scoped to their payer, have no owner; they keep their
 * bytes and hashes, and a store of theirs goes on with ruleset 2 versions linked to them.
 */
export const MEMORY_CHAIN_RULESET = { id: 'memory-chain', version: '2' } as const;
export const LEGACY_MEMORY_CHAIN_RULESET = { id: 'memory-chain', version: '1' } as const;
export const GENESIS_STATE_HASH = '0'.repeat(64);

export interface MemoryVersion {
  /** The payer whose store it is, lowercase; absent on ruleset 1 versions. */
  owner?: string | undefined;
  agent_id: string;
  key: string;
  version: number;
  value: JsonValue;
  valueSha256: string;
  prevStateHash: string;
  stateHash: string;
  writtenAt: number;
}

export type UnhashedMemoryVersion = Omit<MemoryVersion, 'stateHash'>;

/** Size of a value as it is stored and hashed: its canonical UTF-8 bytes. */
export function canonicalValueSize(value: JsonValue): number {
  return canonicalBytes(value).length;
}

export interface ValueBudget {
  withinCap: boolean;
  sizeBytes: number;
  capBytes: number;
}

export function checkValueBudget(value: JsonValue, capBytes: number): ValueBudget {
  const sizeBytes = canonicalValueSize(value);
  return { withinCap: sizeBytes <= capBytes, sizeBytes, capBytes };
}

/** The ruleset a version was written under: only ruleset 2 versions name their owner. */
export function rulesetOf(version: Pick<MemoryVersion, 'owner'>): typeof MEMORY_CHAIN_RULESET | typeof LEGACY_MEMORY_CHAIN_RULESET {
  return version.owner === undefined ? LEGACY_MEMORY_CHAIN_RULESET : MEMORY_CHAIN_RULESET;
}

export function stateHashOf(version: UnhashedMemoryVersion): string {
  return canonicalSha256({
    ...(version.owner === undefined ? {} : { owner: version.owner }),
    agent_id: version.agent_id,
    key: version.key,
    version: version.version,
    value: version.value,
    valueSha256: version.valueSha256,
    prevStateHash: version.prevStateHash,
    writtenAt: version.writtenAt,
  });
}

/** The version that follows `previous` (or the first one, when there is none). */
export function nextVersion(
  previous: Pick<MemoryVersion, 'version' | 'stateHash'> | undefined,
  write: { owner: string; agent_id: string; key: string; value: JsonValue; writtenAt: number },
): MemoryVersion {
  const unhashed: UnhashedMemoryVersion = {
    owner: write.owner.toLowerCase(),
    agent_id: write.agent_id,
    key: write.key,
    version: (previous?.version ?? 0) + 1,
    value: write.value,
    valueSha256: canonicalSha256(write.value),
    prevStateHash: previous?.stateHash ?? GENESIS_STATE_HASH,
    writtenAt: write.writtenAt,
  };
  return { ...unhashed, stateHash: stateHashOf(unhashed) };
}

export interface ChainProblem {
  /** Index in the supplied list (not the version number, which may itself be wrong). */
  index: number;
  message: string;
}

/**
 * Checks a whole chain in order: versions count 1, 2, 3...; all belong to one store (one
 * agent_id and key, one owner wherever a version names it, and no version without an owner
 * after one with); every valueSha256 and stateHash recomputes; every prevStateHash names the
 * previous stateHash.
 */
export function verifyMemoryChain(versions: readonly MemoryVersion[]): ChainProblem[] {
  const problems: ChainProblem[] = [];
  let previousHash = GENESIS_STATE_HASH;
  const first = versions[0];
  let owner: string | undefined;
  versions.forEach((v, index) => {
    const fail = (message: string) => problems.push({ index, message });
    if (v.version !== index + 1) fail(`version is ${v.version}, expected ${index + 1}`);
    if (first && (v.agent_id !== first.agent_id || v.key !== first.key)) fail('belongs to another store (agent_id or key differs)');
    if (owner !== undefined && v.owner !== owner) fail(`belongs to another store (owner is ${v.owner ?? 'absent'}, expected ${owner})`);
    owner ??= v.owner;
    if (v.prevStateHash !== previousHash) fail(`prevStateHash is ${v.prevStateHash}, expected ${previousHash}`);
    if (canonicalSha256(v.value) !== v.valueSha256) fail('valueSha256 does not match the value');
    const recomputed = stateHashOf(v);
    if (recomputed !== v.stateHash) fail(`stateHash ${v.stateHash} does not match the content (recomputed ${recomputed})`);
    previousHash = v.stateHash;
  });
  return problems;
}
