import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GENESIS_STATE_HASH,
  checkValueBudget,
  nextVersion,
  rulesetOf,
  stateHashOf,
  verifyMemoryChain,
  type MemoryVersion,
} from './chain.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

const OWNER = '0x1111111111111111111111111111111111111111';
const write = (value: JsonValue, writtenAt = 1_767_225_600) => ({ owner: OWNER, agent_id: 'agent-1', key: 'prefs', value, writtenAt });

/** A version as ruleset 1 wrote it, before stores were scoped to their payer: no owner. */
function legacyVersion(previous: MemoryVersion | undefined, value: JsonValue): MemoryVersion {
  const { owner: _owner, stateHash: _stateHash, ...unowned } = nextVersion(previous, write(value));
  return { ...unowned, stateHash: canonicalSha256(unowned) };
}

function chainOf(values: JsonValue[]): MemoryVersion[] {
  const chain: MemoryVersion[] = [];
  for (const [i, value] of values.entries()) chain.push(nextVersion(chain.at(-1), write(value, 1_767_225_600 + i)));
  return chain;
}

describe('memory chain engine', () => {
  it('starts version 1 at the genesis hash of 64 zeros', () => {
    const first = nextVersion(undefined, write({ a: 1 }));
    expect(first.version).toBe(1);
    expect(first.prevStateHash).toBe(GENESIS_STATE_HASH);
    expect(GENESIS_STATE_HASH).toMatch(/^0{64}$/);
  });

  it('hashes the value and the version without its stateHash, reproducibly from the record alone', () => {
    const v = nextVersion(undefined, write({ b: [1, 2], a: 'x' }));
    expect(v.valueSha256).toBe(canonicalSha256({ a: 'x', b: [1, 2] }));
    const { stateHash, ...rest } = v;
    expect(stateHash).toBe(canonicalSha256(rest));
    expect(stateHashOf(v)).toBe(stateHash);
  });

  it('links each version to the previous stateHash', () => {
    const chain = chainOf([1, 'two', { three: 3 }]);
    expect(chain.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(chain[1]!.prevStateHash).toBe(chain[0]!.stateHash);
    expect(chain[2]!.prevStateHash).toBe(chain[1]!.stateHash);
    expect(verifyMemoryChain(chain)).toEqual([]);
  });

  it('finds a changed value, a broken link, a skipped version and a foreign version', () => {
    const chain = chainOf([1, 2, 3]);
    expect(verifyMemoryChain([chain[0]!, { ...chain[1]!, value: 99 }, chain[2]!]).map((p) => p.index)).toContain(1);
    expect(verifyMemoryChain([chain[0]!, chain[2]!]).some((p) => /version is 3, expected 2/.test(p.message))).toBe(true);
    const relinked = { ...chain[1]!, prevStateHash: GENESIS_STATE_HASH };
    expect(verifyMemoryChain([chain[0]!, { ...relinked, stateHash: stateHashOf(relinked) }])[0]!.message).toMatch(/prevStateHash/);
    const foreign = { ...chain[1]!, key: 'other' };
    expect(verifyMemoryChain([chain[0]!, { ...foreign, stateHash: stateHashOf(foreign) }])[0]!.message).toMatch(/another store/);
  });

  it('names the owner in every version and in what its stateHash covers, so two payers never share a hash', () => {
    const mine = nextVersion(undefined, write({ a: 1 }));
    const theirs = nextVersion(undefined, { ...write({ a: 1 }), owner: '0x2222222222222222222222222222222222222222' });
    expect(mine.owner).toBe(OWNER);
    expect(theirs.stateHash).not.toBe(mine.stateHash);
    const { stateHash, ...rest } = mine;
    expect(stateHash).toBe(canonicalSha256(rest));
    expect(rulesetOf(mine)).toEqual({ id: 'memory-chain', version: '2' });
  });

  it('recomputes a ruleset 1 version (no owner) as it was hashed then, and chains owned versions after it', () => {
    // As ruleset 1 signed it (the example the documentation carried then).
    const documented: MemoryVersion = {
      agent_id: 'did:web:agent.example',
      key: 'preferences',
      version: 1,
      value: { language: 'en', units: 'metric' },
      valueSha256: '7899c4395d3a08881b57268dd46be1a2594dea76f55ae411809499b9c4bdcc74',
      prevStateHash: GENESIS_STATE_HASH,
      writtenAt: 1_767_225_600,
      stateHash: '12937bbe7962ec607201a4ca13413ce2672f24e7395786ef94788682a4d5d89d',
    };
    expect(verifyMemoryChain([documented])).toEqual([]);
    const first = legacyVersion(undefined, 'old');
    expect(stateHashOf(first)).toBe(first.stateHash);
    expect(rulesetOf(first)).toEqual({ id: 'memory-chain', version: '1' });
    const second = nextVersion(first, write('new'));
    expect(verifyMemoryChain([first, second])).toEqual([]);
  });

  it('finds a version of another owner, and one without an owner after an owned one', () => {
    const chain = chainOf([1, 2]);
    const foreign = { ...chain[1]!, owner: '0x2222222222222222222222222222222222222222' };
    expect(verifyMemoryChain([chain[0]!, { ...foreign, stateHash: stateHashOf(foreign) }])[0]!.message).toMatch(/another store \(owner/);
    const { owner: _owner, ...unowned } = chain[1]!;
    expect(verifyMemoryChain([chain[0]!, { ...unowned, stateHash: stateHashOf(unowned) }])[0]!.message).toMatch(/owner is absent/);
  });

  it('measures the value by its canonical bytes and allows exactly the cap', () => {
    const text = 'x'.repeat(98); // canonical form adds the two quotes: 100 bytes
    expect(checkValueBudget(text, 100)).toEqual({ withinCap: true, sizeBytes: 100, capBytes: 100 });
    expect(checkValueBudget(`${text}x`, 100)).toEqual({ withinCap: false, sizeBytes: 101, capBytes: 100 });
    expect(checkValueBudget('é', 3).sizeBytes).toBe(4); // UTF-8 bytes, not characters
  });

  it('is deterministic and every generated chain verifies (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 8 }), (values) => {
        const once = chainOf(values as JsonValue[]);
        const twice = chainOf(values as JsonValue[]);
        expect(twice).toEqual(once);
        expect(verifyMemoryChain(once)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
