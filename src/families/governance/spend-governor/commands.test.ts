import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import type { PricedOperation } from '../../../kernel/operation.ts';
import { readGovernorState, parseAgentEvent } from './commands.ts';
import { runOperation } from '../../../kernel/run-operation.ts';
import { parseAmount } from '../../../kernel/decimal-amount.ts';
import { evolveGovernor, governorStateView, initialGovernorState } from './decider.ts';
import { agentStreamName } from '../events.ts';
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
    const recorded = await store.readStream(agentStreamName('swarm'));
    let state = initialGovernorState;
    for (const event of recorded) {
      state = evolveGovernor(state, parseAgentEvent(event));
      const view = governorStateView(state, 1_767_225_600)!;
      expect(parseAmount(view.reserved as string)! + parseAmount(view.spent as string)!).toBeLessThanOrEqual(parseAmount('10.5')!);
    }
    expect(governorStateView(state, 1_767_225_600)).toMatchObject({ reserved: '10', available: '0.5' });
  });

  it('another payer is refused in authorize (403) and nothing changes', async () => {
    const store = createMemoryEventStore();
    await runOperation(reserveOp, input(reserveOp, { agent_id: 'owned', amount: '1', purpose: 'p', ttl_seconds: 60, budget: { cap: '5', period: 3600 } }), testCallContext({ store, payer: PAYER_A }));
    const before = await store.readStream(agentStreamName('owned'));
    const ctx = testCallContext({ store, payer: PAYER_B });
    expect(await reserveOp.command!.authorize!(input(reserveOp, { agent_id: 'owned', amount: '1', purpose: 'p', ttl_seconds: 60 }), ctx)).toMatchObject({ status: 403, error: 'forbidden' });
    const leaseId = (before[1]!.data as { lease_id: string }).lease_id;
    expect(await settleOp.command!.authorize!(input(settleOp, { lease_id: leaseId, actual_amount: '1' }), ctx)).toMatchObject({ status: 403 });
    expect(await store.readStream(agentStreamName('owned'))).toEqual(before);
  });

  it('authorize answers BUDGET-EXCEEDED, a missing budget and an unknown lease free of charge', async () => {
    const store = createMemoryEventStore();
    const ctx = testCallContext({ store });
    expect(await reserveOp.command!.authorize!(input(reserveOp, { agent_id: 'new', amount: '1', purpose: 'p', ttl_seconds: 60 }), ctx)).toMatchObject({ status: 422, error: 'budget_required' });
    await runOperation(reserveOp, input(reserveOp, { agent_id: 'new', amount: '4', purpose: 'p', ttl_seconds: 60, budget: { cap: '5', period: 3600 } }), ctx);
    expect(await reserveOp.command!.authorize!(input(reserveOp, { agent_id: 'new', amount: '2', purpose: 'p', ttl_seconds: 60 }), testCallContext({ store }))).toMatchObject({ status: 422, outcome: 'BUDGET-EXCEEDED' });
    expect(await settleOp.command!.authorize!(input(settleOp, { lease_id: 'new:0123456789abcdef01234567', actual_amount: '1' }), testCallContext({ store }))).toMatchObject({ status: 422, outcome: 'NOT-FOUND' });
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
    const state = await readGovernorState(store, 'payee');
    expect(governorStateView(state, ctx.now + 30)).toMatchObject({ spent: '2.5', reserved: '0', available: '2.5' });
    const body = first.body as unknown as Ev;
    expect(check(ctx.keyring, 'governance', body.evidenceCore, body.sha256, body.ed25519Sig).valid).toBe(true);
  });

  it('input validation names the field and the reason', () => {
    const r = reserveOp.input.safeParse({ agent_id: 'bad id!', amount: '1.1234567', purpose: '', ttl_seconds: 0 });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['agent_id', 'amount', 'purpose', 'ttl_seconds']));
    expect(settleOp.input.safeParse({ lease_id: 'nope', actual_amount: '1' }).success).toBe(false);
  });
});
