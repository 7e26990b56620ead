import { describe, expect, it } from 'vitest';
import { deciderSpec, expectSnapshotKeepsState, snapshotFingerprint } from '../../../../test/support/decider-spec.ts';
import { ForeignMemoryStore, latestVersion, memoryDecider, versionNumbered, versionWrittenBy, type PutMemory } from './decider.ts';
import { GENESIS_STATE_HASH, nextVersion, verifyMemoryChain } from './chain.ts';
import { MEMORY_EVENT_TYPES, type MemoryEvent } from './events.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { PAYER_A, PAYER_B } from '../../../../test/support/call-context.ts';

const put = (overrides: Partial<PutMemory> = {}): PutMemory => ({
  agent_id: 'agent-1',
  key: 'prefs',
  value: { lang: 'en' },
  payer: PAYER_A,
  paymentId: 'payment-a-1',
  now: 1_767_225_600,
  ...overrides,
});

const opened = (owner = PAYER_A): MemoryEvent => ({
  type: MEMORY_EVENT_TYPES.opened,
  data: { agent_id: 'agent-1', key: 'prefs', owner, openedAt: 1_767_225_600, paymentId: 'payment-a-1' },
});
const firstVersion = nextVersion(undefined, { owner: PAYER_A, agent_id: 'agent-1', key: 'prefs', value: { lang: 'en' }, writtenAt: 1_767_225_600 });
const written: MemoryEvent = { type: MEMORY_EVENT_TYPES.versionWritten, data: { ...firstVersion, paymentId: 'payment-a-1' } };

/** Version 1 as ruleset 1 wrote it, in a store opened before stores were scoped to their payer: no owner in the version. */
const { owner: _owner, stateHash: _stateHash, ...unownedFirst } = firstVersion;
const legacyFirstVersion = { ...unownedFirst, stateHash: canonicalSha256(unownedFirst) };
const legacyWritten: MemoryEvent = { type: MEMORY_EVENT_TYPES.versionWritten, data: { ...legacyFirstVersion, paymentId: 'payment-a-1' } };

const { given } = deciderSpec(memoryDecider);

describe('memory decider', () => {
  it("given no events, when a put, then the payer's store opens and version 1 names the payer and links to genesis", () => {
    given([])
      .when(put())
      .thenMatches([
        { type: MEMORY_EVENT_TYPES.opened, data: { owner: PAYER_A, agent_id: 'agent-1', key: 'prefs' } },
        { type: MEMORY_EVENT_TYPES.versionWritten, data: { owner: PAYER_A, version: 1, prevStateHash: GENESIS_STATE_HASH, paymentId: 'payment-a-1' } },
      ]);
  });

  it('given an opened store with one version, when the owner puts again, then version 2 links to version 1', () => {
    given([opened(), written])
      .when(put({ paymentId: 'payment-a-2', value: 2 }))
      .thenMatches([{ type: MEMORY_EVENT_TYPES.versionWritten, data: { owner: PAYER_A, version: 2, prevStateHash: firstVersion.stateHash, value: 2 } }]);
  });

  it('given the version this payment already wrote, when the same put resumes, then nothing new is appended', () => {
    given([opened(), written]).when(put()).thenNothing();
  });

  it("given a legacy store (its version names no owner), when its owner puts, then version 2 names the owner and links to the legacy version", () => {
    const spec = given([opened(PAYER_A), legacyWritten]).when(put({ paymentId: 'payment-a-2', value: 2 }));
    spec.thenMatches([{ type: MEMORY_EVENT_TYPES.versionWritten, data: { owner: PAYER_A, version: 2, prevStateHash: legacyFirstVersion.stateHash } }]);
    const state = spec.thenState();
    expect(verifyMemoryChain([legacyFirstVersion, latestVersion(state)!])).toEqual([]);
    expect(latestVersion(state)?.owner).toBe(PAYER_A);
  });

  it('keeps the latest version whole and, for every version, only where its event lies in the stream and which payment wrote it', () => {
    const state = given([opened(), written]).when(put({ paymentId: 'payment-a-2', value: 2 })).thenState();
    expect(latestVersion(state)).toMatchObject({ version: 2, value: 2, prevStateHash: firstVersion.stateHash });
    expect([versionWrittenBy(state, 'payment-a-1'), versionWrittenBy(state, 'payment-a-2'), versionNumbered(state, 1), versionNumbered(state, 3)]).toEqual([
      { version: 1, revision: 1, paymentId: 'payment-a-1' },
      { version: 2, revision: 2, paymentId: 'payment-a-2' },
      { version: 1, revision: 1 },
      undefined,
    ]);
    expect(state.events).toBe(3);
    expect(JSON.stringify([...state.versions.pieces()])).not.toContain('lang');
  });

  it('says it holds every version\'s place and one value, the latest: an earlier value, however large, no longer counts', () => {
    const large = given([opened(), written]).when(put({ paymentId: 'payment-a-2', value: 'v'.repeat(10_000) })).thenState();
    expect(memoryDecider.keptSize!(large)).toBe(2 * 200 + 10_002);
    const next = memoryDecider.decide(put({ paymentId: 'payment-a-3', value: 1 }), large).reduce(memoryDecider.evolve, large);
    expect(memoryDecider.keptSize!(next)).toBe(3 * 200 + 1);
  });

  it("given another payer's store, when a put, then the decider never extends it and answers no refusal (no 403: that would tell who keeps which store)", () => {
    given([opened(PAYER_A), written]).when(put({ payer: PAYER_B, paymentId: 'payment-b-1' })).thenThrows(ForeignMemoryStore);
  });

  it('treats the payer address case-insensitively', () => {
    given([opened(PAYER_A), written])
      .when(put({ payer: PAYER_A.toUpperCase().replace('0X', '0x'), paymentId: 'p-2' }))
      .thenMatches([{ type: MEMORY_EVENT_TYPES.versionWritten, data: { owner: PAYER_A } }]);
  });
});

/** A store's history through decide: opened by the first put, then a version a put, with the values given. */
function historyOf(values: unknown[]): MemoryEvent[] {
  const events: MemoryEvent[] = [];
  for (const [i, value] of values.entries()) {
    const state = events.reduce(memoryDecider.evolve, memoryDecider.initialState);
    events.push(...memoryDecider.decide(put({ paymentId: `payment-${i}`, value: value as PutMemory['value'], now: 1_767_225_600 + i }), state));
  }
  return events;
}

describe('memory decider: its state in a snapshot', () => {
  const values = [{ lang: 'en' }, 'two', 3, null, [1, { deep: ['x'] }], { lang: 'fr', 'ключ': 'значение' }, true, 'eight'];
  const events = historyOf(values);

  it('is the state folded from the start, wherever the snapshot cuts the history: it encodes, weighs and decides the same', () => {
    const commands = [put({ paymentId: 'payment-next', value: 'next' }), put({ paymentId: 'payment-3' }), put({ payer: PAYER_B, paymentId: 'payment-b' })];
    for (let cut = 0; cut <= events.length; cut++) expectSnapshotKeepsState(memoryDecider, events, cut, commands);
  });

  it('is the state folded from the start for a store of 3,000 versions, most of their places archived: it finds, encodes and decides the same', () => {
    const long: MemoryEvent[] = [];
    let state = memoryDecider.initialState;
    for (let i = 0; i < 3_000; i++) {
      const decided = memoryDecider.decide(put({ paymentId: `payment-${i}`, value: i, now: 1_767_225_600 + i }), state);
      long.push(...decided);
      state = decided.reduce(memoryDecider.evolve, state);
    }
    // The store opened at revision 0: version n lies at revision n.
    expect(versionWrittenBy(state, 'payment-5')).toEqual({ version: 6, revision: 6, paymentId: 'payment-5' });
    expect(versionNumbered(state, 6)).toEqual({ version: 6, revision: 6 });
    expect(memoryDecider.decide(put({ paymentId: 'payment-5' }), state)).toEqual([]);
    // It weighs what it holds: under 2,048 places whole, the others 24 bytes each.
    expect(memoryDecider.keptSize!(state)).toBeLessThan(2_048 * 200 + 3_000 * 24 + 10);
    const commands = [put({ paymentId: 'payment-5' }), put({ paymentId: 'payment-2999' }), put({ paymentId: 'payment-new', value: 'new' })];
    for (const cut of [0, 1_500, 2_049, long.length]) expectSnapshotKeepsState(memoryDecider, long, cut, commands);
  });

  it('keeps a version written before stores were scoped to their payer, without an owner', () => {
    for (let cut = 0; cut <= 2; cut++) expectSnapshotKeepsState(memoryDecider, [opened(), legacyWritten], cut, [put({ paymentId: 'payment-a-2', value: 2 })]);
  });

  it('changes its snapshot version whenever its encoding of a fixed history changes', () => {
    // Pinned: on a change, bump the memory codec's version with the new fingerprint (kernel/state-snapshots.ts).
    expect(snapshotFingerprint(memoryDecider, events)).toBe('memory-store/v2 ecfbdcf21fdf64f05e1f22c7517aae5dbdde3ae67f1f2167187420ce87a62506');
  });
});
