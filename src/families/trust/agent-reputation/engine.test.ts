import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeReputation, RECENCY_HALF_LIFE_SECONDS, REPUTATION_RULESET } from './engine.ts';
import { wilsonLowerBound } from '../shared/stats.ts';
import { canonicalText, type JsonObject, type JsonValue } from '../../../signing/rfc8785.ts';
import { edSigner, evmSigner, signedOutcome } from '../../../../test/support/keys.ts';

const agent = 'did:web:agents.example.org:eu-1';
const counterparty = edSigner(40);
const wallet = evmSigner(0x41);
const T = 1_767_225_600;

const outcome = (o: string, at: number, extra: Record<string, unknown> = {}) => ({ agent, outcome: o, at, ...extra });
const sign = (event: Record<string, unknown>) => signedOutcome(event, counterparty) as Promise<JsonValue>;

describe('agent reputation engine', () => {
  it('scores valid Ed25519 and EIP-191 signed events: counts, rates, Wilson bound, counterparties', async () => {
    const events = [
      await sign(outcome('success', T, { counterparty: 'shop-a', amount: 12.5 })),
      await sign(outcome('success', T - 10, { counterparty: 'shop-b' })),
      await sign(outcome('failure', T - 20, { counterparty: 'shop-a' })),
      (await signedOutcome(outcome('dispute', T - 30, { counterparty: 'shop-c' }), wallet)) as JsonValue,
    ];
    const c = composeReputation({ agent, events }, 5);
    expect(c).toMatchObject({
      agent,
      kind: 'agent-reputation',
      ruleset: REPUTATION_RULESET,
      outcome: 'SCORED',
      events_supplied: 4,
      rejected_events: [],
      counts: { valid: 4, rejected: 0, success: 2, failure: 1, dispute: 1 },
      success_rate: 0.5,
      dispute_rate: 0.25,
      distinct_counterparties: 3,
      distinct_signers: 2,
      newest_event_at: T,
      oldest_event_at: T - 30,
      composedAt: 5,
    });
    expect(c.wilson_lower_bound).toBeCloseTo(wilsonLowerBound(2, 4), 6);
    expect(c.reputation_score).toBeGreaterThan(0);
    expect(c.reputation_score).toBeLessThan(1);
    expect(c.verdict).toMatch(/reputation: score 0\.\d\d from 4 signed outcomes, 2 successful/);
  });

  it('lists unparseable, unsigned, badly signed, self-attested and off-subject events with the reason, and leaves them out', async () => {
    const good = (await sign(outcome('success', T))) as JsonObject;
    const self = edSigner(42);
    const events: JsonValue[] = [
      good,
      'not an event',
      { event: outcome('success', T) },
      { ...good, signature: '' },
      { ...good, event: { ...(good.event as JsonObject), outcome: 'failure' } },
      await sign(outcome('excellent', T)),
      await sign({ ...outcome('success', T), agent: 'someone-else' }),
      { ...(await signedOutcome(outcome('success', T), self)), signer: agent } as JsonValue,
      { ...good, signer: 'did:web:example.org' },
    ];
    const c = composeReputation({ agent, events }, 0);
    expect(c.counts).toMatchObject({ valid: 1, rejected: 8 });
    const reasons = (c.rejected_events as JsonObject[]).map((r) => [r.index, r.reason]);
    expect(reasons).toEqual([
      [1, expect.stringMatching(/^unparseable/)],
      [2, expect.stringMatching(/^unsigned/)],
      [3, expect.stringMatching(/^unsigned/)],
      [4, expect.stringMatching(/^bad signature/)],
      [5, expect.stringMatching(/^unparseable event: outcome/)],
      [6, expect.stringContaining('is about agent someone-else')],
      [7, expect.stringMatching(/^self-attested/)],
      [8, expect.stringMatching(/^bad signature: signer is neither/)],
    ]);
    for (const [, reason] of reasons) expect(String(reason).length).toBeLessThanOrEqual(160);
  });

  it('INSUFFICIENT-DATA and no score when no valid event is left', async () => {
    for (const events of [[], ['x', { event: outcome('success', T), signature: 'ab', signer: counterparty.hex }]] as JsonValue[][]) {
      const c = composeReputation({ agent, events }, 3);
      expect(c.outcome).toBe('INSUFFICIENT-DATA');
      expect(c).not.toHaveProperty('reputation_score');
      expect(c.verdict).toContain('insufficient data');
      expect((c.rejected_events as unknown[]).length).toBe(events.length);
    }
  });

  it('weights recency from the newest event, never the wall clock: shifting every event in time changes nothing', async () => {
    const at = [T, T - RECENCY_HALF_LIFE_SECONDS, T - 3 * RECENCY_HALF_LIFE_SECONDS];
    const kinds = ['success', 'failure', 'failure'];
    const make = (shift: number) => Promise.all(at.map((a, i) => sign(outcome(kinds[i]!, a + shift))));
    const base = composeReputation({ agent, events: await make(0) }, 1);
    const shifted = composeReputation({ agent, events: await make(86_400 * 365) }, 1);
    expect(shifted.reputation_score).toBe(base.reputation_score);
    // success weight 1, failures 0.5 and 0.125: recent success counts most.
    expect(base.recency_weighted_success_rate).toBeCloseTo(1 / 1.625, 6);
  });

  it('keeps reputation_score in [0, 1] and is deterministic apart from composedAt', async () => {
    const signedPool = await Promise.all(
      ['success', 'failure', 'dispute'].flatMap((o) => [0, 1000, 5_000_000].map((d) => sign(outcome(o, T - d, { counterparty: `cp-${d}` })))),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...signedPool), fc.jsonValue()), { maxLength: 20 }), fc.nat(), fc.nat(), (events, t1, t2) => {
        const a = composeReputation({ agent, events: events as JsonValue[] }, t1);
        const b = composeReputation({ agent, events: events as JsonValue[] }, t2);
        expect(canonicalText({ ...a, composedAt: 0 })).toBe(canonicalText({ ...b, composedAt: 0 }));
        if (a.outcome === 'SCORED') {
          expect(a.reputation_score).toBeGreaterThanOrEqual(0);
          expect(a.reputation_score).toBeLessThanOrEqual(1);
          for (const k of ['success_rate', 'wilson_lower_bound', 'dispute_rate', 'recency_weighted_success_rate']) {
            expect(a[k]).toBeGreaterThanOrEqual(0);
            expect(a[k]).toBeLessThanOrEqual(1);
          }
        } else {
          expect(a).not.toHaveProperty('reputation_score');
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('amounts in outcome events', () => {
  it('takes a decimal-string amount as governance writes it ("1.50"), never dropping a correctly signed event', async () => {
    const events = [await sign(outcome('success', T, { amount: '1.50' })), await sign(outcome('success', T - 10, { amount: 2 }))];
    const c = composeReputation({ agent, events }, 5) as { counts: { valid: number; rejected: number } };
    expect(c.counts).toMatchObject({ valid: 2, rejected: 0 });
  });

  it('still rejects an amount that is not an amount, with the reason', async () => {
    const c = composeReputation({ agent, events: [await sign(outcome('success', T, { amount: 'lots' }))] }, 5) as { rejected_events: Array<{ reason: string }> };
    expect(c.rejected_events).toHaveLength(1);
    expect(c.rejected_events[0]!.reason).toContain('amount');
  });
});

describe('self-attestation is told by the key, however it is spelled', () => {
  const selfKey = edSigner(43);
  const selfWallet = evmSigner(0x45);

  async function scoreOwnEvent(agentId: string, signer: string, sign: (text: string) => Promise<string> | string) {
    const event = { agent: agentId, outcome: 'success', at: T };
    const signed = { event, signature: await sign(canonicalText(event)), signer };
    return composeReputation({ agent: agentId, events: [signed, (await signedOutcome(event, counterparty)) as JsonValue] }, 0);
  }

  it.each([
    ['did:key agent, signer as hex', () => selfKey.didKey, () => selfKey.hex],
    ['did:key agent, signer as base64', () => selfKey.didKey, () => selfKey.base64],
    ['hex agent, signer as did:key', () => selfKey.hex, () => selfKey.didKey],
  ])('Ed25519: %s -> rejected as self-attested', async (_name, agentOf, signerOf) => {
    const c = await scoreOwnEvent(agentOf(), signerOf(), (text) => selfKey.sign(text));
    expect(c.counts).toMatchObject({ valid: 1, rejected: 1 });
    expect(c.rejected_events).toEqual([{ index: 0, reason: expect.stringMatching(/^self-attested: signed by the agent's own key/) }]);
    expect(c.self_attestation_check).toMatchObject({ compared: 'key identity', agent_key: `ed25519:${selfKey.hex}` });
  });

  it.each([
    ['did:pkh on Base, signer the address', () => `did:pkh:eip155:8453:${selfWallet.address}`, () => selfWallet.address],
    ['did:pkh on mainnet, signer the lower-case address', () => `did:pkh:eip155:1:${selfWallet.address}`, () => selfWallet.lower],
    ['lower-case address, signer checksummed', () => selfWallet.lower, () => selfWallet.address],
  ])('EVM: %s -> rejected as self-attested (the chain id does not matter)', async (_name, agentOf, signerOf) => {
    const c = await scoreOwnEvent(agentOf(), signerOf(), (text) => selfWallet.sign(text));
    expect(c.counts).toMatchObject({ valid: 1, rejected: 1 });
    expect(c.rejected_events).toEqual([{ index: 0, reason: expect.stringMatching(/^self-attested/) }]);
    expect(c.self_attestation_check).toMatchObject({ compared: 'key identity', agent_key: `evm:${selfWallet.lower}` });
  });

  it('a did:web agent names no key: the record says signers were compared as text', async () => {
    const c = composeReputation({ agent, events: [await sign(outcome('success', T))] }, 0);
    expect(c.outcome).toBe('SCORED');
    expect(c.self_attestation_check).toEqual({ compared: 'text', detail: expect.stringContaining('not detected') });
  });

  it('one key spelled two ways is one signer', async () => {
    const asHex = await sign(outcome('success', T));
    const asBase64 = { ...((await sign(outcome('failure', T - 1))) as JsonObject), signer: counterparty.base64 };
    const c = composeReputation({ agent, events: [asHex, asBase64] }, 0);
    expect(c.counts).toMatchObject({ valid: 2 });
    expect(c.distinct_signers).toBe(1);
  });
});

describe('an event sent more than once counts once', () => {
  it('50 copies of one signed event score as one, the 49 repeats listed as duplicates', async () => {
    const one = await sign(outcome('success', T));
    const single = composeReputation({ agent, events: [one] }, 0);
    const fifty = composeReputation({ agent, events: Array<JsonValue>(50).fill(one) }, 0);
    expect(fifty.counts).toMatchObject({ valid: 1, rejected: 49, success: 1 });
    expect(fifty.reputation_score).toBe(single.reputation_score);
    expect(fifty.verdict).toContain('from 1 signed outcome,');
    expect(fifty.rejected_events).toEqual(Array.from({ length: 49 }, (_, i) => ({ index: i + 1, reason: 'duplicate: the same event signed by the same key as event 0' })));
  });

  it('the same event and key under another spelling of the key, or another valid signature, is a duplicate', async () => {
    const event = outcome('failure', T, { counterparty: 'shop-a' });
    const asHex = (await sign(event)) as JsonObject;
    const asDidKey = { ...asHex, signer: counterparty.didKey };
    const byWallet = (await signedOutcome(event, wallet)) as JsonObject;
    // EIP-191 takes the recovery byte as 27/28 or as 0/1: two texts, one signature.
    const v = Number.parseInt(String(byWallet.signature).slice(-2), 16);
    const sameWalletOtherV = { ...byWallet, signature: `${String(byWallet.signature).slice(0, -2)}${(v - 27).toString(16).padStart(2, '0')}` };
    const c = composeReputation({ agent, events: [asHex, asDidKey, byWallet, sameWalletOtherV] }, 0);
    expect(c.counts).toMatchObject({ valid: 2, rejected: 2 });
    expect(c.rejected_events).toEqual([
      { index: 1, reason: expect.stringMatching(/^duplicate: .* event 0$/) },
      { index: 3, reason: expect.stringMatching(/^duplicate: .* event 2$/) },
    ]);
    expect(c.distinct_signers).toBe(2);
  });

  it('one outcome attested by two different keys counts twice, and a copy of an invalid event keeps its own reason', async () => {
    const event = outcome('success', T);
    const bad = { ...((await sign(event)) as JsonObject), signature: 'ff'.repeat(64) };
    const c = composeReputation({ agent, events: [await sign(event), (await signedOutcome(event, wallet)) as JsonValue, bad, bad] }, 0);
    expect(c.counts).toMatchObject({ valid: 2, rejected: 2 });
    expect((c.rejected_events as JsonObject[]).map((r) => String(r.reason).split(':')[0])).toEqual(['bad signature', 'bad signature']);
  });
});

describe('reasons cut to length', () => {
  it('are cut between code points: a reason quoting emoji never ends in half a surrogate pair', () => {
    const events: JsonValue[] = [{ event: { agent: `a${'😀'.repeat(100)}`, outcome: 'success', at: 1 }, signature: 'x', signer: 'y' }];
    const c = composeReputation({ agent: 'did:web:a', events }, 0);
    const reason = String((c.rejected_events as JsonObject[])[0]!.reason);
    expect(reason).toMatch(/^event is about agent a😀+\.\.\.$/u);
    expect(reason.length).toBeLessThanOrEqual(160);
    expect(reason).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
