import { describe, expect, it } from 'vitest';
import { deciderSpec, expectSnapshotKeepsState, snapshotFingerprint } from '../../../../test/support/decider-spec.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { catalogEntryDecider } from './decider.ts';
import { CATALOG_ENTRY_REGISTERED, type CatalogEntryRegistered } from './events.ts';

const entryId = '0123456789abcdef0123456789abcdef';
const evidenceCore = { kind: 'verify-catalog.entry', entryId, registeredAt: 1_767_225_600 };
const registered = (paymentId: string): CatalogEntryRegistered => ({
  type: CATALOG_ENTRY_REGISTERED,
  data: { entryId, paymentId, evidenceCore, sha256: canonicalSha256(evidenceCore) },
});

const spec = deciderSpec(catalogEntryDecider);

describe('the verify-catalog entry decider', () => {
  it('given no registration, when a paid call registers, then one CatalogEntryRegistered with the record digest', () => {
    spec.given([]).when({ paymentId: 'payment-1', evidenceCore }).then([registered('payment-1')]);
  });

  it('given this call already registered (a resumed saga), when it registers again, then nothing new', () => {
    spec.given([registered('payment-1')]).when({ paymentId: 'payment-1', evidenceCore }).thenNothing();
  });

  it('given another call registered the entry, when a new paid call registers, then it is recorded too, and the state keeps both', () => {
    spec.given([registered('payment-1')]).when({ paymentId: 'payment-2', evidenceCore }).then([registered('payment-2')]);
    // It keeps where each record is (its revision), not the record.
    const { state } = spec.given([registered('payment-1'), registered('payment-2')]);
    expect([state.length, state.latestWithKey('payment-1'), state.latestWithKey('payment-2')]).toEqual([
      2,
      { paymentId: 'payment-1', revision: 0, index: 0 },
      { paymentId: 'payment-2', revision: 1, index: 1 },
    ]);
  });
});

describe('the verify-catalog entry decider: its state in a snapshot', () => {
  const events = Array.from({ length: 12 }, (_, i) => registered(`payment-${i}`));

  it('is the state folded from the start, wherever the snapshot cuts the history: it encodes, weighs and decides the same', () => {
    const commands = [{ paymentId: 'payment-3', evidenceCore }, { paymentId: 'payment-new', evidenceCore }];
    for (let cut = 0; cut <= events.length; cut++) expectSnapshotKeepsState(catalogEntryDecider, events, cut, commands);
  });

  it('changes its snapshot version whenever its encoding of a fixed history changes', () => {
    // Pinned: on a change, bump the catalogue codec's version with the new fingerprint (kernel/state-snapshots.ts).
    expect(snapshotFingerprint(catalogEntryDecider, events)).toBe('catalog-entry/v1 6e31136169cc0480a34aa5daada1262f1734324b9474900fcd71482ab69c1867');
  });
});
