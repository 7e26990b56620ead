import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import type { PricedOperation } from '../../../kernel/operation.ts';
import { parseAgentEvent, readGovernorState } from './agent-stream.ts';
import { writeLegacyAgent } from './legacy-agent.test-support.ts';
import { runOperation } from '../../../kernel/run-operation.ts';
import { parseAmount } from '../../../kernel/decimal-amount.ts';
import { evolveGovernor, governorStateView, initialGovernorState } from './decider.ts';
import { agentStreamName, legacyAgentStreamName } from '../events.ts';
import { createMemoryEventStore } from '../../../events/memory-store.ts';
import { check } from '../../../signing/seal.ts';
import { PAYER_A, PAYER_B, testCallContext } from '../../../../test/support/call-context.ts';

const reserveOp = findOperation('governance.reserve') as PricedOperation<Record<string, unknown>>;
const settleOp = findOperation('governance.settle') as PricedOperation<Record<string, unknown>>;
const input = (op: PricedOperation<Record<string, unknown>>, raw: unknown) => op.input.parse(raw);
type Ev = { evidenceCore: Record<string, unknown>; sha256: string; ed25519Sig: string };

describe('governance.reserve and governance.settle commands', () => {
  it('50 concurrent reserves against one cap never overspend: exactly as many win as fit', async () => {
    const store = createMemoryEventStore();
    await runOperation(reserveOp, input(reserveOp, { agent_id: 'swarm', amount: '1', purpose: 'open', ttl_seconds: 600, budget: { cap: '10.5', period: 3600 } }), testCallContext({ store }));
    const results = await Promise.all(
      Array.from({ length: 50 }, () => runOperation(reserveOp, input(reserveOp, { agent_id: 'swarm', amount: '0.75', purpose: 'race', ttl_seconds: 600 }), testCallContext({ store }))),
    );
    const outcomes = results.map((r) => r.record.outcome);
    expect(outcomes.filter((o) => o === 'RESERVED')).toHaveLength(12); // 9.5 / 0.75 = 12.67
    expect(outcomes.filter((o) => o === 'BUDGET-EXCEEDED')).toHaveLength(38);
    // reserved + spent <= cap after every single event of the stream, not only at the end.
    const recorded = await store.readStream(agentStreamName(PAYER_A, 'swarm'));
    let state = initialGovernorState;
    for (const event of recorded) {
      state = evolveGovernor(state, parseAgentEvent(event));
      const view = governorStateView(state, 1_767_225_600)!;
      expect(parseAmount(view.reserved as string)! + parseAmount(view.spent as string)!).toBeLessThanOrEqual(parseAmount('10.5')!);
    }
    expect(governorStateView(state, 1_767_225_600)).toMatchObject({ reserved: '10', available: '0.5' });
  });

  it("another payer's reserve of the same agent_id opens its own budget, and the first payer's is untouched", async () => {
    const store = createMemoryEventStore();
    const asA = () => testCallContext({ store, payer: PAYER_A });
    const asB = () => testCallContext({ store, payer: PAYER_B });
    const aLease = await runOperation(reserveOp, input(reserveOp, { agent_id: 'research-agent-7', amount: '4', purpose: 'a', ttl_seconds: 600, budget: { cap: '10', period: 3600 } }), asA());
    expect(aLease.record).toMatchObject({ outcome: 'RESERVED', owner: PAYER_A, ruleset: { id: 'spend-governor', version: '2' }, available: '6' });
    const aBefore = await store.readStream(agentStreamName(PAYER_A, 'research-agent-7'));

    // The squatter's tiny budget is its own; it neither blocks nor touches the agent's.
    expect(await reserveOp.command!.authorize!(input(reserveOp, { agent_id: 'research-agent-7', amount: '1', purpose: 'b', ttl_seconds: 60 }), asB())).toMatchObject({ status: 422, error: 'budget_required' });
    const bLease = await runOperation(reserveOp, input(reserveOp, { agent_id: 'research-agent-7', amount: '0.5', purpose: 'b', ttl_seconds: 60, budget: { cap: '1', period: 60 } }), asB());
    expect(bLease.record).toMatchObject({ outcome: 'RESERVED', owner: PAYER_B, reserved: '0.5', available: '0.5', budget: { cap: '1', period: 60 } });
    expect(await store.readStream(agentStreamName(PAYER_A, 'research-agent-7'))).toEqual(aBefore);

    const aAgain = await runOperation(reserveOp, input(reserveOp, { agent_id: 'research-agent-7', amount: '6', purpose: 'a', ttl_seconds: 600 }), asA());
    expect(aAgain.record).toMatchObject({ outcome: 'RESERVED', owner: PAYER_A, reserved: '10', available: '0' });
    expect(governorStateView(await readGovernorState(store, PAYER_B, 'research-agent-7'), asB().now)).toMatchObject({ owner: PAYER_B, reserved: '0.5', available: '0.5' });
  });

  it("settling a lease of another payer's agent is answered as an unknown lease (422 NOT-FOUND, free) and changes nothing", async () => {
    const store = createMemoryEventStore();
    const asB = () => testCallContext({ store, payer: PAYER_B });
    const aLease = await runOperation(reserveOp, input(reserveOp, { agent_id: 'owned', amount: '1', purpose: 'p', ttl_seconds: 600, budget: { cap: '5', period: 3600 } }), testCallContext({ store, payer: PAYER_A }));
    const before = await store.readStream(agentStreamName(PAYER_A, 'owned'));
    const aLeaseId = aLease.record.lease_id as string;
    const unknownLeaseId = 'owned:0123456789abcdef01234567';

    const theirs = await settleOp.command!.authorize!(input(settleOp, { lease_id: aLeaseId, actual_amount: '1' }), asB());
    const nobodys = await settleOp.command!.authorize!(input(settleOp, { lease_id: unknownLeaseId, actual_amount: '1' }), asB());
    expect(theirs).toMatchObject({ status: 422, error: 'lease_not_found', outcome: 'NOT-FOUND', issues: [{ path: 'lease_id' }] });
    // The same answer, but for the lease id it names: nothing tells B that A's lease exists.
    expect(JSON.stringify(theirs).replaceAll(aLeaseId, '<lease>')).toBe(JSON.stringify(nobodys).replaceAll(unknownLeaseId, '<lease>'));
    // B having an agent of that id changes nothing: A's lease is still not one of B's.
    await runOperation(reserveOp, input(reserveOp, { agent_id: 'owned', amount: '1', purpose: 'p', ttl_seconds: 600, budget: { cap: '5', period: 3600 } }), asB());
    expect(await settleOp.command!.authorize!(input(settleOp, { lease_id: aLeaseId, actual_amount: '1' }), asB())).toEqual(theirs);
    expect(await store.readStream(agentStreamName(PAYER_A, 'owned'))).toEqual(before);
  });

  it('an agent written under the legacy stream name keeps working for its recorded owner only', async () => {
    const store = createMemoryEventStore();
    const now = testCallContext().now;
    const legacyLease = await writeLegacyAgent(store, PAYER_A, 'legacy-agent', { cap: '10', leaseAmount: '3', now });
    const asA = () => testCallContext({ store, payer: PAYER_A });
    const asB = () => testCallContext({ store, payer: PAYER_B });

    // The owner reserves against the same budget, in the same stream, and settles the old lease.
    const more = await runOperation(reserveOp, input(reserveOp, { agent_id: 'legacy-agent', amount: '2', purpose: 'p', ttl_seconds: 600 }), asA());
    expect(more.record).toMatchObject({ outcome: 'RESERVED', owner: PAYER_A, ruleset: { version: '2' }, reserved: '5', available: '5' });
    const settled = await runOperation(settleOp, input(settleOp, { lease_id: legacyLease.lease_id as string, actual_amount: '2.5' }), asA());
    expect(settled.record).toMatchObject({ outcome: 'SETTLED', owner: PAYER_A, reserved_amount: '3', released_amount: '0.5' });
    expect(await store.readStream(agentStreamName(PAYER_A, 'legacy-agent'))).toEqual([]);
    expect((await store.readStream(legacyAgentStreamName('legacy-agent'))).map((e) => e.type)).toEqual(['BudgetOpened', 'LeaseReserved', 'LeaseReserved', 'LeaseSettled']);
    expect(governorStateView(await readGovernorState(store, PAYER_A, 'legacy-agent'), now)).toMatchObject({ owner: PAYER_A, spent: '2.5', reserved: '2', available: '5.5' });

    // Any other payer: as if absent. Its reserve opens its own agent; the old lease is not its own.
    expect(await readGovernorState(store, PAYER_B, 'legacy-agent')).toEqual(await readGovernorState(store, PAYER_B, 'never-used'));
    expect(await settleOp.command!.authorize!(input(settleOp, { lease_id: legacyLease.lease_id as string, actual_amount: '1' }), asB())).toMatchObject({ status: 422, outcome: 'NOT-FOUND' });
    const theirs = await runOperation(reserveOp, input(reserveOp, { agent_id: 'legacy-agent', amount: '1', purpose: 'p', ttl_seconds: 60, budget: { cap: '2', period: 60 } }), asB());
    expect(theirs.record).toMatchObject({ owner: PAYER_B, reserved: '1', available: '1' });
    expect(await store.readStream(agentStreamName(PAYER_B, 'legacy-agent'))).toHaveLength(2);
    expect(await store.readStream(legacyAgentStreamName('legacy-agent'))).toHaveLength(4);
  });

  it('authorize answers BUDGET-EXCEEDED, a missing budget and an unknown lease free of charge', async () => {
    const store = createMemoryEventStore();
    const ctx = testCallContext({ store });
    expect(await reserveOp.command!.authorize!(input(reserveOp, { agent_id: 'new', amount: '1', purpose: 'p', ttl_seconds: 60 }), ctx)).toMatchObject({ status: 422, error: 'budget_required' });
    await runOperation(reserveOp, input(reserveOp, { agent_id: 'new', amount: '4', purpose: 'p', ttl_seconds: 60, budget: { cap: '5', period: 3600 } }), ctx);
    expect(await reserveOp.command!.authorize!(input(reserveOp, { agent_id: 'new', amount: '2', purpose: 'p', ttl_seconds: 60 }), testCallContext({ store }))).toMatchObject({ status: 422, outcome: 'BUDGET-EXCEEDED' });
    expect(await settleOp.command!.authorize!(input(settleOp, { lease_id: 'new:0123456789abcdef01234567', actual_amount: '1' }), testCallContext({ store }))).toMatchObject({ status: 422, outcome: 'NOT-FOUND', issues: [{ path: 'lease_id' }] });
  });

  it('settling twice returns the same receipt, byte for byte, and counts once; a resumed reserve is a no-op', async () => {
    const store = createMemoryEventStore();
    const ctx = testCallContext({ store });
    const reserveInput = input(reserveOp, { agent_id: 'payee', amount: '3', purpose: 'p', ttl_seconds: 600, budget: { cap: '5', period: 3600 } });
    const lease = await runOperation(reserveOp, reserveInput, ctx);
    const resumed = await runOperation(reserveOp, reserveInput, { ...ctx, now: ctx.now + 5 });
    expect(resumed.body).toEqual(lease.body);
    const leaseId = lease.record.lease_id as string;
    const first = await runOperation(settleOp, input(settleOp, { lease_id: leaseId, actual_amount: '2.5' }), testCallContext({ store, now: ctx.now + 10 }));
    const second = await runOperation(settleOp, input(settleOp, { lease_id: leaseId, actual_amount: '2.5' }), testCallContext({ store, now: ctx.now + 20 }));
    expect(second.body).toEqual(first.body);
    expect((second.body as unknown as Ev).evidenceCore).toMatchObject({ outcome: 'SETTLED', settledAt: ctx.now + 10, released_amount: '0.5' });
    const state = await readGovernorState(store, PAYER_A, 'payee');
    expect(governorStateView(state, ctx.now + 30)).toMatchObject({ spent: '2.5', reserved: '0', available: '2.5' });
    const body = first.body as unknown as Ev;
    expect(check(ctx.keyring, 'governance', body.evidenceCore, body.sha256, body.ed25519Sig).valid).toBe(true);

    // A refusal, then every call resumed after later ones: each answers the record it signed, read back from where it lies in the stream.
    const refusedInput = input(reserveOp, { agent_id: 'payee', amount: '9', purpose: 'too much', ttl_seconds: 600 });
    const refusedCtx = testCallContext({ store, now: ctx.now + 40 });
    const refused = await runOperation(reserveOp, refusedInput, refusedCtx);
    expect(refused.record.outcome).toBe('BUDGET-EXCEEDED');
    await runOperation(reserveOp, input(reserveOp, { agent_id: 'payee', amount: '1', purpose: 'later', ttl_seconds: 600 }), testCallContext({ store, now: ctx.now + 50 }));
    expect((await runOperation(reserveOp, reserveInput, { ...ctx, now: ctx.now + 60 })).body).toEqual(lease.body);
    expect((await runOperation(reserveOp, refusedInput, { ...refusedCtx, now: ctx.now + 60 })).body).toEqual(refused.body);
    expect((await runOperation(settleOp, input(settleOp, { lease_id: leaseId, actual_amount: '2.5' }), testCallContext({ store, now: ctx.now + 60 }))).body).toEqual(first.body);
    expect(await store.readStream(agentStreamName(PAYER_A, 'payee'))).toHaveLength(5);
  });

  it('decisions over a day old are archived and answer as before: a settlement settled again, resumed reserves and refusals, an expired lease', async () => {
    const store = createMemoryEventStore();
    const t0 = testCallContext().now;
    const at = (seconds: number) => testCallContext({ store, now: t0 + seconds });
    const leaseCtx = at(0);
    const leaseInput = input(reserveOp, { agent_id: 'aged', amount: '3', purpose: 'p', ttl_seconds: 600, budget: { cap: '5', period: 3600 } });
    const lease = await runOperation(reserveOp, leaseInput, leaseCtx);
    const leaseId = lease.record.lease_id as string;
    const settled = await runOperation(settleOp, input(settleOp, { lease_id: leaseId, actual_amount: '2.5' }), at(10));
    const expiring = await runOperation(reserveOp, input(reserveOp, { agent_id: 'aged', amount: '1', purpose: 'left', ttl_seconds: 60 }), at(20));
    const refusedCtx = at(30);
    const refusedInput = input(reserveOp, { agent_id: 'aged', amount: '9', purpose: 'too much', ttl_seconds: 600 });
    const refused = await runOperation(reserveOp, refusedInput, refusedCtx);
    expect(refused.record.outcome).toBe('BUDGET-EXCEEDED');
    // Two days on, then three: the first call archives the old leases, the second the refusal too.
    await runOperation(reserveOp, input(reserveOp, { agent_id: 'aged', amount: '1', purpose: 'later', ttl_seconds: 600 }), at(2 * 86_400));
    await runOperation(reserveOp, input(reserveOp, { agent_id: 'aged', amount: '1', purpose: 'later still', ttl_seconds: 600 }), at(3 * 86_400 + 100));
    const stream = agentStreamName(PAYER_A, 'aged');
    const length = (await store.readStream(stream)).length;
    const state = await readGovernorState(store, PAYER_A, 'aged');
    expect([state.leases.has(leaseId), state.leases.has(expiring.record.lease_id as string), state.refusals.size, state.archive.size]).toEqual([false, false, 0, 3]);

    const later = (seconds: number) => at(3 * 86_400 + 200 + seconds);
    expect((await runOperation(settleOp, input(settleOp, { lease_id: leaseId, actual_amount: '2.5' }), later(0))).body).toEqual(settled.body);
    expect(await settleOp.command!.authorize!(input(settleOp, { lease_id: leaseId, actual_amount: '2' }), later(1))).toMatchObject({ status: 409, error: 'lease_already_settled' });
    expect(await settleOp.command!.authorize!(input(settleOp, { lease_id: expiring.record.lease_id as string, actual_amount: '1' }), later(2))).toMatchObject({ status: 409, error: 'lease_expired' });
    expect((await runOperation(reserveOp, leaseInput, { ...leaseCtx, now: later(3).now })).body).toEqual(lease.body);
    expect((await runOperation(reserveOp, refusedInput, { ...refusedCtx, now: later(4).now })).body).toEqual(refused.body);
    expect(await settleOp.command!.authorize!(input(settleOp, { lease_id: 'aged:0123456789abcdef01234567', actual_amount: '1' }), later(5))).toMatchObject({ status: 422, outcome: 'NOT-FOUND' });
    expect(await store.readStream(stream)).toHaveLength(length);
    expect(governorStateView(await readGovernorState(store, PAYER_A, 'aged'), later(6).now)).toMatchObject({ reserved: '1', spent: '0', available: '4' });
  });

  it('input validation names the field and the reason', () => {
    const r = reserveOp.input.safeParse({ agent_id: 'bad id!', amount: '1.1234567', purpose: '', ttl_seconds: 0 });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['agent_id', 'amount', 'purpose', 'ttl_seconds']));
    expect(settleOp.input.safeParse({ lease_id: 'nope', actual_amount: '1' }).success).toBe(false);
  });
});
