import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  agentOfLease,
  ARCHIVE_AFTER_SECONDS,
  ArchivedFactsNeeded,
  evolveGovernor,
  governorEvolve,
  ForeignAgentBudget,
  governorDecider,
  governorStateView,
  initialGovernorState,
  isReleased,
  leaseIdFor,
  openLeasesAt,
  usageAt,
  windowStartOf,
  keptCharsOf,
  resultRevisionOf,
  type GovernorCommand,
  type GovernorEvent,
  type GovernorState,
} from './decider.ts';
import { archivedFactsFrom, archivedRevisionsFor } from './archived-facts.ts';
import { formatAmount, parseAmount } from '../../../kernel/decimal-amount.ts';
import { DomainRefusal } from '../../../kernel/decider.ts';
import { deciderSpec, expectSnapshotKeepsState, snapshotFingerprint } from '../../../../test/support/decider-spec.ts';

const OWNER = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';
const T0 = 1_767_225_600;
let payment = 0;

const reserve = (amount: string, over: Partial<Extract<GovernorCommand, { kind: 'reserve' }>> = {}): GovernorCommand => ({
  kind: 'reserve',
  agent_id: 'agent-1',
  payer: OWNER,
  amountMicros: parseAmount(amount)!,
  purpose: 'calls',
  ttlSeconds: 600,
  now: T0,
  paymentId: `payment-${++payment}`,
  ...over,
});
const settle = (lease_id: string, actual: string, over: Partial<Extract<GovernorCommand, { kind: 'settle' }>> = {}): GovernorCommand => ({
  kind: 'settle',
  agent_id: 'agent-1',
  lease_id,
  payer: OWNER,
  actualMicros: parseAmount(actual)!,
  now: T0 + 10,
  paymentId: `payment-${++payment}`,
  ...over,
});
const budget = (cap: string, periodSeconds = 3600) => ({ capMicros: parseAmount(cap)!, periodSeconds });

const recordOf = (e: GovernorEvent) => ('record' in e.data ? e.data.record : undefined);

/** given events -> state */
const given = (events: GovernorEvent[]): GovernorState => events.reduce(evolveGovernor, initialGovernorState);
const when = (state: GovernorState, command: GovernorCommand): GovernorEvent[] => governorDecider.decide(command, state);
const refusalOf = (state: GovernorState, command: GovernorCommand): DomainRefusal | undefined => {
  try {
    governorDecider.decide(command, state);
    return undefined;
  } catch (err) {
    if (err instanceof DomainRefusal) return err;
    throw err;
  }
};

function opened(cap = '10'): GovernorEvent[] {
  return when(initialGovernorState, reserve('1', { budget: budget(cap), paymentId: 'opening' }));
}

describe('amounts', () => {
  it('parses and formats exactly', () => {
    expect(parseAmount('0.1')! + parseAmount('0.2')!).toBe(parseAmount('0.3'));
    expect(formatAmount(1_500_000n)).toBe('1.5');
    expect(formatAmount(0n)).toBe('0');
    expect(parseAmount('1.1234567')).toBeUndefined();
    expect(parseAmount('01')).toBeUndefined();
    expect(parseAmount('-1')).toBeUndefined();
  });
  it('round-trips every micro amount', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), (m) => {
      expect(parseAmount(formatAmount(m))).toBe(m);
    }));
  });
});

describe('spend governor: reserve', () => {
  it('given no stream, when a reserve carries a budget, then BudgetOpened and LeaseReserved', () => {
    const events = when(initialGovernorState, reserve('2', { budget: budget('10'), paymentId: 'p1' }));
    expect(events.map((e) => e.type)).toEqual(['BudgetOpened', 'LeaseReserved']);
    const lease = events[1]!;
    expect(lease.type === 'LeaseReserved' && lease.data.record).toMatchObject({ outcome: 'RESERVED', lease_id: leaseIdFor('agent-1', 'p1'), amount: '2', expiresAt: T0 + 600, reserved: '2', available: '8', ruleset: { id: 'spend-governor', version: '2' }, owner: OWNER });
  });

  it('given no stream, when a reserve has no budget, then 422 budget_required', () => {
    expect(refusalOf(initialGovernorState, reserve('1'))).toMatchObject({ status: 422, error: 'budget_required', outcome: 'INVALID-INPUT' });
  });

  it("given another payer's agent, when this payer reserves on it, then a fault of the service, not an answer: no events", () => {
    // Agents are per payer (agent-stream.ts picks the payer's stream): another payer's is never handed to decide.
    expect(() => when(given(opened()), reserve('1', { payer: OTHER }))).toThrow(ForeignAgentBudget);
  });

  it('given a budget, when a reserve sends a different budget, then 409 budget_mismatch; the same budget is fine', () => {
    const state = given(opened('10'));
    expect(refusalOf(state, reserve('1', { budget: budget('11') }))).toMatchObject({ status: 409, error: 'budget_mismatch' });
    expect(when(state, reserve('1', { budget: budget('10') })).map((e) => e.type)).toEqual(['LeaseReserved']);
  });

  it('given 9 of 10 reserved, when 2 more are asked, then ReserveRefused with BUDGET-EXCEEDED; 1 more still fits', () => {
    const state = given([...opened('10'), ...when(given(opened('10')), reserve('8'))]);
    const refused = when(state, reserve('2'));
    expect(refused[0]!.type).toBe('ReserveRefused');
    expect(recordOf(refused[0]!)).toMatchObject({ outcome: 'BUDGET-EXCEEDED', amount: '2', reserved: '9', available: '1' });
    expect(when(state, reserve('1'))[0]!.type).toBe('LeaseReserved');
  });

  it('given an expired lease, when reserving, then its reservation is released', () => {
    const start = opened('10');
    const full = when(given(start), reserve('9', { ttlSeconds: 60 }));
    const state = given([...start, ...full]);
    expect(when(state, reserve('5', { now: T0 + 59 }))[0]!.type).toBe('ReserveRefused');
    expect(when(state, reserve('5', { now: T0 + 60 }))[0]!.type).toBe('LeaseReserved');
  });

  it('given a new period window, when reserving, then the previous window no longer counts', () => {
    const start = opened('10');
    const state = given([...start, ...when(given(start), reserve('9', { ttlSeconds: 100_000 }))]);
    expect(when(state, reserve('5', { now: T0 + 3599 }))[0]!.type).toBe('ReserveRefused');
    expect(when(state, reserve('5', { now: T0 + 3600 }))[0]!.type).toBe('LeaseReserved');
  });

  it('given a decision already recorded for this payment, when the call is resumed, then no new events and the same record', () => {
    const cmd = reserve('1', { budget: budget('10') });
    const events = when(initialGovernorState, cmd);
    const state = given(events);
    expect(when(state, cmd)).toEqual([]);
    // The state says where the record lies in the stream; it keeps no record itself.
    expect(resultRevisionOf(cmd, state)).toBe(1);
    expect(events[1]!.type).toBe('LeaseReserved');
    expect([...state.leases.values()].map((lease) => Object.keys(lease))).toEqual([['lease_id', 'amountMicros', 'purpose', 'reservedAt', 'expiresAt', 'paymentId', 'revision']]);
  });
});

describe('spend governor: settle', () => {
  const start = opened('10');
  const leaseId = leaseIdFor('agent-1', 'opening');
  const state = given(start);

  it('given an open lease, when settled below the reservation, then LeaseSettled releasing the rest', () => {
    const events = when(state, settle(leaseId, '0.4'));
    expect(recordOf(events[0]!)).toMatchObject({ outcome: 'SETTLED', owner: OWNER, ruleset: { version: '2' }, actual_amount: '0.4', reserved_amount: '1', released_amount: '0.6' });
    const view = governorStateView(given([...start, ...events]), T0 + 20)!;
    expect(view).toMatchObject({ reserved: '0', spent: '0.4', available: '9.6', openLeases: [] });
  });

  it('given a settled lease, when settled again with the same amount, then no events and the original receipt', () => {
    const first = settle(leaseId, '0.4');
    const stream = [...start, ...when(state, first)];
    const settled = given(stream);
    const again = settle(leaseId, '0.4', { now: T0 + 99 });
    expect(when(settled, again)).toEqual([]);
    expect(resultRevisionOf(again, settled)).toBe(stream.length - 1);
    expect(recordOf(stream[resultRevisionOf(again, settled)!]!)).toMatchObject({ outcome: 'SETTLED', actual_amount: '0.4' });
    expect(governorStateView(settled, T0 + 100)!.spent).toBe('0.4');
    expect(refusalOf(settled, settle(leaseId, '0.5'))).toMatchObject({ status: 409, error: 'lease_already_settled' });
  });

  it("refuses: more than reserved (422), expired (409), unknown (NOT-FOUND); another payer's agent is a fault", () => {
    expect(refusalOf(state, settle(leaseId, '1.000001'))).toMatchObject({ status: 422, error: 'actual_exceeds_reserved' });
    expect(refusalOf(state, settle(leaseId, '1', { now: T0 + 600 }))).toMatchObject({ status: 409, error: 'lease_expired' });
    expect(refusalOf(state, settle(leaseIdFor('agent-1', 'nope'), '1'))).toMatchObject({ status: 422, outcome: 'NOT-FOUND' });
    expect(refusalOf(initialGovernorState, settle(leaseId, '1'))).toMatchObject({ outcome: 'NOT-FOUND' });
    expect(() => when(state, settle(leaseId, '1', { payer: OTHER }))).toThrow(ForeignAgentBudget);
  });

  it('lease ids carry their agent', () => {
    expect(agentOfLease(leaseId)).toBe('agent-1');
    expect(agentOfLease('agent-1:xyz')).toBeUndefined();
    expect(agentOfLease(':0123456789abcdef01234567')).toBeUndefined();
    const hash = leaseId.slice(leaseId.lastIndexOf(':') + 1);
    expect(agentOfLease(`agent-1:${hash.toUpperCase()}`)).toBeUndefined();
    expect(agentOfLease(`agent-1:${hash.slice(1)}`)).toBeUndefined();
    expect(agentOfLease(`agent-1:${hash}0`)).toBeUndefined();
    expect(agentOfLease(`agent:1:${hash}`)).toBeUndefined();
    expect(agentOfLease(hash)).toBeUndefined();
  });
});

/** Random reserves and settles of an opened budget, each a step of `dt` seconds. */
const governorOps = (bounds: { amount: number; ttl: number; dt: number }) =>
  fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('reserve' as const), amount: fc.integer({ min: 1, max: bounds.amount }), ttl: fc.integer({ min: 1, max: bounds.ttl }), dt: fc.integer({ min: 0, max: bounds.dt }) }),
      fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), fraction: fc.double({ min: 0, max: 1, noNaN: true }), dt: fc.integer({ min: 0, max: bounds.dt }) }),
    ),
    { maxLength: 60 },
  );
type GovernorOp = ReturnType<typeof governorOps> extends fc.Arbitrary<Array<infer O>> ? O : never;

/** Folds each op the governor accepts into the state, and calls `check` after every op; answers the events it folded. */
function runOps(state: GovernorState, ops: GovernorOp[], check: (state: GovernorState, now: number) => void): GovernorEvent[] {
  const folded: GovernorEvent[] = [];
  let now = T0;
  for (const [i, o] of ops.entries()) {
    now += o.dt;
    const leases = [...state.leases.values()];
    const lease = leases[o.kind === 'settle' ? o.pick % leases.length : 0];
    const cmd =
      o.kind === 'reserve' || !lease
        ? reserve('0', { amountMicros: BigInt(o.kind === 'reserve' ? o.amount : 1), ttlSeconds: o.kind === 'reserve' ? o.ttl : 60, now, paymentId: `q${i}` })
        : settle(lease.lease_id, '0', { actualMicros: BigInt(Math.floor(Number(lease.amountMicros) * o.fraction)), now, paymentId: `q${i}` });
    if (!refusalOf(state, cmd)) {
      const events = when(state, cmd);
      folded.push(...events);
      state = events.reduce(evolveGovernor, state);
    }
    check(state, now);
  }
  return folded;
}

describe('spend governor: invariant', () => {
  it('reserved + spent never exceeds the cap, whatever the command sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20_000_000 }), governorOps({ amount: 5_000_000, ttl: 500, dt: 200 }), (cap, ops) => {
        const opened = given(when(initialGovernorState, reserve('0.000001', { budget: { capMicros: BigInt(cap), periodSeconds: 100_000 }, paymentId: 'o' })));
        runOps(opened, ops, (state, now) => {
          const view = governorStateView(state, now)!;
          expect(parseAmount(view.reserved as string)! + parseAmount(view.spent as string)!).toBeLessThanOrEqual(BigInt(cap));
        });
      }),
      { numRuns: 200 },
    );
  });
});

/** What a window's figures are by definition: every lease of the agent read, as before the tallies. */
function usageByReadingEveryLease(state: GovernorState, now: number) {
  const budget = state.budget!;
  const windowStart = windowStartOf(budget, now);
  let reservedMicros = 0n;
  let spentMicros = 0n;
  const open: string[] = [];
  for (const lease of state.leases.values()) {
    if (windowStartOf(budget, lease.reservedAt) !== windowStart) continue;
    if (lease.settlement) spentMicros += lease.settlement.actualMicros;
    else if (!isReleased(lease, now)) {
      reservedMicros += lease.amountMicros;
      open.push(lease.lease_id);
    }
  }
  return { reservedMicros, spentMicros, open: open.sort() };
}

describe('spend governor: the windows kept by evolve', () => {
  it('give the figures of reading every lease, across windows, expiries and settlements', () => {
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 200 }), governorOps({ amount: 300, ttl: 120, dt: 40 }), fc.array(fc.integer({ min: -50, max: 400 }), { maxLength: 5 }), (period, ops, probes) => {
        const opened = given(when(initialGovernorState, reserve('0.000001', { budget: { capMicros: 2_000n, periodSeconds: period }, paymentId: 'o' })));
        runOps(opened, ops, (state, now) => {
          for (const at of [now, ...probes.map((p) => now + p)]) {
            const usage = usageAt(state, at)!;
            expect({ reservedMicros: usage.reservedMicros, spentMicros: usage.spentMicros, open: openLeasesAt(state, at).map((l) => l.lease_id).sort() }).toEqual(usageByReadingEveryLease(state, at));
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it('ignore a repeated event, so a stream that holds one twice counts it once', () => {
    const opened = when(initialGovernorState, reserve('2', { budget: budget('10'), paymentId: 'p1' }));
    const settled = when(given(opened), settle(leaseIdFor('agent-1', 'p1'), '1', { paymentId: 'p2' }));
    const once = given([...opened, ...settled]);
    const twice = given([...opened, ...opened, ...settled, ...settled]);
    expect(usageAt(twice, T0 + 20)).toEqual(usageAt(once, T0 + 20));
    expect(usageAt(once, T0 + 20)).toMatchObject({ reservedMicros: 0n, spentMicros: 1_000_000n, availableMicros: 9_000_000n });
  });

  it('stay exact, and find the record of every payment, over 20,000 reserves and settles', () => {
    // The cost of such a stream is measured by `npm run bench -- stateful`; here, its figures.
    const stream = when(initialGovernorState, reserve('0.000001', { budget: budget('1000000', 86_400 * 365), paymentId: 'o', ttlSeconds: 86_400 * 365 }));
    let state = given(stream);
    for (let i = 0; i < 20_000; i++) {
      const reserved = when(state, reserve('0.000002', { paymentId: `r${i}`, now: T0 + i, ttlSeconds: 86_400 * 365 }));
      state = reserved.reduce(evolveGovernor, state);
      stream.push(...reserved);
      if (i % 2 === 0) {
        const settled = when(state, settle(leaseIdFor('agent-1', `r${i}`), '0.000001', { now: T0 + i, paymentId: `s${i}` }));
        state = settled.reduce(evolveGovernor, state);
        stream.push(...settled);
      }
    }
    expect(state.leases.size).toBe(20_001);
    expect(state.events).toBe(stream.length);
    // What it says it holds: the leases' and settlements' ids and figures, a fraction of the events' data (their records).
    expect(state.keptChars).toBe(stream.reduce((sum, event) => sum + keptCharsOf(event), 0));
    expect(state.keptChars).toBeLessThan(stream.reduce((sum, event) => sum + JSON.stringify(event.data).length, 0) / 2);
    expect(usageAt(state, T0 + 20_000)).toMatchObject({ reservedMicros: 1n + 10_000n * 2n, spentMicros: 10_000n });
    for (const [paymentId, command] of [['r19999', reserve('1', { paymentId: 'r19999' })], ['r0', reserve('1', { paymentId: 'r0' })], ['s0', settle(leaseIdFor('agent-1', 'r0'), '0.000001', { paymentId: 's0' })]] as const) {
      const event = stream[resultRevisionOf(command, state)!]!;
      expect(event.data.paymentId).toBe(paymentId);
      expect(recordOf(event)).toMatchObject({ outcome: paymentId.startsWith('s') ? 'SETTLED' : 'RESERVED' });
    }
  });
});

describe('the spend governor, given/when/then', () => {
  const spec = deciderSpec(governorDecider);
  const opening = reserve('1', { budget: budget('10'), paymentId: 'open-1' });
  const openedEvents = spec.given([]).when(opening).thenMatches([{ type: 'BudgetOpened' }, { type: 'LeaseReserved' }]);

  it("given a payer's budget, when another payer's command is decided on it, then a fault (ForeignAgentBudget), never a refusal", () => {
    spec.given(openedEvents).when(reserve('1', { payer: OTHER })).thenThrows(ForeignAgentBudget);
    spec.given(openedEvents).when(settle(leaseIdFor('agent-1', 'open-1'), '1', { payer: OTHER })).thenThrows(ForeignAgentBudget);
  });

  it('given no budget, when another payer opens one of the same agent_id, then its own BudgetOpened names it the owner', () => {
    spec.given([]).when(reserve('1', { payer: OTHER, budget: budget('3') })).thenMatches([
      { type: 'BudgetOpened', data: { owner: OTHER, capMicros: '3000000' } },
      { type: 'LeaseReserved', data: { record: { owner: OTHER, available: '2' } } },
    ]);
  });

  it('given a budget with 9 available, when 10 are reserved, then a signed BUDGET-EXCEEDED refusal is recorded', () => {
    spec.given(openedEvents).when(reserve('10')).thenMatches([{ type: 'ReserveRefused', data: { record: { outcome: 'BUDGET-EXCEEDED', available: '9' } } }]);
  });

  it('given a lease, when it is settled below its amount, then LeaseSettled releases the rest; the same settlement again decides nothing', () => {
    const leaseId = leaseIdFor('agent-1', 'open-1');
    const settleIt = settle(leaseId, '0.4', { paymentId: 'settle-1' });
    const settled = spec.given(openedEvents).when(settleIt).thenMatches([{ type: 'LeaseSettled', data: { record: { released_amount: '0.6' } } }]);
    spec.given([...openedEvents, ...settled]).when(settleIt).thenNothing();
  });

  it('given no budget, when a lease is settled, then it is refused NOT-FOUND, in the words an unknown lease of an agent gets', () => {
    const leaseId = leaseIdFor('agent-1', 'nope');
    const noAgent = spec.given([]).when(settle(leaseId, '1')).thenRefuses({ status: 422, outcome: 'NOT-FOUND' });
    const noLease = spec.given(openedEvents).when(settle(leaseId, '1')).thenRefuses({ status: 422, outcome: 'NOT-FOUND' });
    expect(noAgent.asRefusal()).toEqual(noLease.asRefusal());
  });
});

describe('spend governor: its state in a snapshot', () => {
  it('is the state folded from the start, whatever the history and wherever the snapshot cuts it: it encodes, weighs and decides the same', () => {
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 400 }), governorOps({ amount: 300, ttl: 120, dt: 40 }), fc.nat(), fc.array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 4 }), (period, ops, cutAt, probes) => {
        const opening = when(initialGovernorState, reserve('0.0001', { budget: { capMicros: 2_000n, periodSeconds: period }, paymentId: 'o' }));
        const events = [...opening, ...runOps(given(opening), ops, () => {})];
        const state = given(events);
        const leases = [...state.leases.values()];
        const commands = probes.flatMap((dt, i) => [
          reserve('0', { amountMicros: BigInt(1 + (dt % 500)), now: T0 + dt, paymentId: `p${i}` }),
          ...(leases.length > 0 ? [settle(leases[dt % leases.length]!.lease_id, '0', { actualMicros: 1n, now: T0 + dt, paymentId: `s${i}` })] : []),
        ]);
        expectSnapshotKeepsState(governorDecider, events, cutAt % (events.length + 1), commands);
      }),
      { numRuns: 200 },
    );
  });

  it('is the state folded from the start for an agent whose leases, refusals and open leases each take several pieces', () => {
    const opening = when(initialGovernorState, reserve('0.000001', { budget: { capMicros: 1_500n, periodSeconds: 100_000 }, paymentId: 'long-o' }));
    const ops: GovernorOp[] = Array.from({ length: 5_000 }, (_, i) => (i % 5 === 4 ? { kind: 'settle', pick: i, fraction: 0.5, dt: 1 } : { kind: 'reserve', amount: 1, ttl: 50_000 - i, dt: 1 }));
    const events = [...opening, ...runOps(given(opening), ops, () => {})];
    const state = given(events);
    expect(state.leases.size).toBeGreaterThan(2_000);
    expect(state.refusals.size).toBeGreaterThan(1_000);
    expect([...governorDecider.snapshot!.encode(state)].filter((piece) => (piece as string[])[0] === 'open').length).toBeGreaterThan(1);
    for (const cut of [0, 1_234, events.length - 1, events.length]) expectSnapshotKeepsState(governorDecider, events, cut, [reserve('0.000001', { now: T0 + 5_100 })]);
  });

  it('is the state folded from the start for an agent whose decisions were archived, wherever the snapshot cuts it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 2 * ARCHIVE_AFTER_SECONDS }), governorOps({ amount: 300, ttl: 2 * ARCHIVE_AFTER_SECONDS, dt: ARCHIVE_AFTER_SECONDS / 2 }), fc.nat(), fc.array(fc.nat(), { maxLength: 4 }), (period, ops, cutAt, picks) => {
        const opening = when(initialGovernorState, reserve('0.0001', { budget: { capMicros: 2_000n, periodSeconds: period }, paymentId: 'o' }));
        const events = [...opening, ...runOps(given(opening), ops, () => {})];
        const state = given(events);
        const leaseIds = events.flatMap((event) => (event.type === 'LeaseReserved' ? [event.data.lease_id] : []));
        // Reserves resumed: of the payments decided so far (archived or held), and new ones.
        const payments = [...events.flatMap((event) => (event.type === 'LeaseReserved' || event.type === 'ReserveRefused' ? [event.data.paymentId] : [])), ...picks.map((_, i) => `p${i}`)];
        const end = T0 + ops.reduce((sum, o) => sum + o.dt, 0);
        const commands = picks.flatMap((pick, i) => [
          prepared(reserve('0', { amountMicros: BigInt(1 + (pick % 500)), now: end + (pick % 100), paymentId: payments[pick % payments.length]! }), state, events),
          ...(leaseIds.length > 0 ? [prepared(settle(leaseIds[pick % leaseIds.length]!, '0', { actualMicros: 1n, now: end + pick % 100, paymentId: `s${i}` }), state, events)] : []),
        ]);
        expectSnapshotKeepsState(governorDecider, events, cutAt % (events.length + 1), commands);
      }),
      { numRuns: 150 },
    );
  });

  it('changes its snapshot version whenever its encoding of a fixed history changes', () => {
    const opening = when(initialGovernorState, reserve('0.0001', { budget: { capMicros: 2_000n, periodSeconds: 300 }, paymentId: 'pin-o' }));
    const ops: GovernorOp[] = Array.from({ length: 40 }, (_, i) =>
      i % 3 === 2 ? { kind: 'settle', pick: i * 7, fraction: (i % 5) / 5, dt: 17 } : { kind: 'reserve', amount: 37 * (i + 1), ttl: 90 + i, dt: i % 10 === 9 ? ARCHIVE_AFTER_SECONDS / 2 : 23 },
    );
    const events = [...opening, ...runOps(given(opening), ops, () => {})];
    expect(events.map((event) => event.type)).toContain('ReserveRefused');
    expect(events.map((event) => event.type)).toContain('LeaseSettled');
    expect(given(events).archive.size).toBeGreaterThan(0);
    // Pinned: on a change, bump governorStateCodec's version with the new fingerprint (kernel/state-snapshots.ts).
    expect(snapshotFingerprint(governorDecider, events)).toBe('spend-governor/v2 06d968ef417ccbe9586f350720c617af9baed62ecb97ef5a84c7a858b59c53c4');
  });
});

/** The command as its handler brings it (commands.ts): with what the events hold of the archived decision it names. */
function prepared(command: GovernorCommand, state: GovernorState, events: readonly GovernorEvent[]): GovernorCommand {
  const revisions = archivedRevisionsFor(command, state);
  const archived = archivedFactsFrom(command, state, new Map(revisions.map((revision) => [revision, events[revision]!])));
  return archived ? { ...command, archived } : command;
}

/** What a command decides on a state, and the revision of the record it answers with when it writes nothing. */
function outcomeOf(state: GovernorState, command: GovernorCommand) {
  try {
    const events = governorDecider.decide(command, state);
    return { events, answers: events.length === 0 ? resultRevisionOf(command, state) : undefined };
  } catch (err) {
    if (err instanceof DomainRefusal) return { refused: err.asRefusal() };
    throw err;
  }
}

const DAY = ARCHIVE_AFTER_SECONDS;
/** evolve as it was before the archive: the model every archiving state must decide as. */
const evolveWholly = governorEvolve(Number.MAX_SAFE_INTEGER);

describe('spend governor: archived decisions', () => {
  it('decide every command as the state that holds every lease whole, over weeks of reserves, settlements, resumed calls and refusals', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('reserve' as const), amount: fc.integer({ min: 1, max: 900 }), ttl: fc.integer({ min: 1, max: 3 * DAY }), dt: fc.integer({ min: 0, max: DAY }) }),
      fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), fraction: fc.double({ min: 0, max: 1, noNaN: true }), dt: fc.integer({ min: 0, max: DAY }) }),
      fc.record({ kind: fc.constant('resume' as const), pick: fc.nat(), dt: fc.integer({ min: 0, max: DAY }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 3 * DAY }), fc.array(op, { minLength: 10, maxLength: 80 }), (period, ops) => {
        const events = when(initialGovernorState, reserve('0.0001', { budget: { capMicros: 3_000n, periodSeconds: period }, paymentId: 'o' }));
        let archiving = events.reduce(evolveGovernor, initialGovernorState);
        let whole = events.reduce(evolveWholly, initialGovernorState);
        const sent: GovernorCommand[] = [];
        const leaseIds: string[] = [];
        let now = T0;
        for (const [i, o] of ops.entries()) {
          now += o.dt;
          let command: GovernorCommand;
          if (o.kind === 'reserve' || sent.length === 0) command = reserve('0', { amountMicros: BigInt(o.kind === 'reserve' ? o.amount : 1), ttlSeconds: o.kind === 'reserve' ? o.ttl : 60, now, paymentId: `q${i}` });
          else if (o.kind === 'resume') command = { ...sent[o.pick % sent.length]!, now };
          else {
            const leaseId = leaseIds.length > 0 ? leaseIds[o.pick % leaseIds.length]! : leaseIdFor('agent-1', 'never');
            const held = whole.leases.get(leaseId);
            const actual = held && o.pick % 4 !== 0 ? BigInt(Math.floor(Number(held.settlement?.actualMicros ?? held.amountMicros) * (held.settlement ? 1 : o.fraction))) : 1n;
            command = settle(leaseId, '0', { actualMicros: actual, now, paymentId: `q${i}` });
          }
          sent.push(command);
          const expected = outcomeOf(whole, command);
          expect(outcomeOf(archiving, prepared(command, archiving, events))).toEqual(expected);
          for (const event of 'events' in expected ? expected.events! : []) {
            if (event.type === 'LeaseReserved') leaseIds.push(event.data.lease_id);
            events.push(event);
            archiving = evolveGovernor(archiving, event);
            whole = evolveWholly(whole, event);
          }
          expect(usageAt(archiving, now)).toEqual(usageAt(whole, now));
          expect(governorStateView(archiving, now)).toEqual(governorStateView(whole, now));
        }
        // What it archived it holds no more: every decision is held or archived, never both.
        expect(archiving.leases.size + archiving.refusals.size + archiving.archive.size).toBe(whole.leases.size + whole.refusals.size);
      }),
      { numRuns: 150 },
    );
  });

  it('hold about the last day of leases whole, and 16 bytes of each before it', () => {
    const events = when(initialGovernorState, reserve('0.000001', { budget: budget('1000000', 3600), paymentId: 'o', now: T0 }));
    let state = given(events);
    for (let i = 0; i < 30 * 100; i++) {
      const now = T0 + Math.floor((i * DAY) / 100);
      const reserved = when(state, reserve('0.000002', { paymentId: `r${i}`, now, ttlSeconds: 600 }));
      const settled = i % 2 === 0 ? when(reserved.reduce(evolveGovernor, state), settle(leaseIdFor('agent-1', `r${i}`), '0.000001', { now: now + 1, paymentId: `s${i}` })) : [];
      for (const event of [...reserved, ...settled]) {
        events.push(event);
        state = evolveGovernor(state, event);
      }
    }
    const whole = events.reduce(evolveWholly, initialGovernorState);
    expect(whole.leases.size).toBe(3_001);
    expect(state.leases.size).toBeLessThanOrEqual(2 * 100 + 2);
    expect(state.leases.size + state.archive.size).toBe(3_001);
    expect(state.windows.size).toBeLessThanOrEqual(2 * 24 + 2);
    expect(state.keptChars).toBeLessThan(whole.keptChars / 5);
    expect(state.keptChars).toBe(whole.keptChars - keptCharsArchived(whole, state));
  });

  it('need what the stream holds of an archived decision a command names, at the revisions the archive gives', () => {
    const events = when(initialGovernorState, reserve('1', { budget: budget('10'), paymentId: 'old', now: T0 }));
    events.push(...when(given(events), settle(leaseIdFor('agent-1', 'old'), '0.5', { now: T0 + 5, paymentId: 'old-settle' })));
    events.push(...when(given(events), reserve('1', { paymentId: 'two days on', now: T0 + 2 * DAY })));
    const state = given(events);
    const old = leaseIdFor('agent-1', 'old');
    expect(state.leases.has(old)).toBe(false);
    expect(state.archive.find(old)).toEqual({ revision: 1, settledRevision: 2, refused: false });

    const settleAgain = settle(old, '0.5', { now: T0 + 2 * DAY + 5, paymentId: 'again' });
    expect(() => governorDecider.decide(settleAgain, state)).toThrow(ArchivedFactsNeeded);
    expect(archivedRevisionsFor(settleAgain, state)).toEqual([1, 2]);
    expect(outcomeOf(state, prepared(settleAgain, state, events))).toEqual({ events: [], answers: 2 });
    expect(outcomeOf(state, prepared(settle(old, '0.4', { now: T0 + 2 * DAY + 5 }), state, events))).toMatchObject({ refused: { status: 409, error: 'lease_already_settled' } });
    expect(outcomeOf(state, prepared(reserve('1', { paymentId: 'old', now: T0 + 2 * DAY + 5 }), state, events))).toEqual({ events: [], answers: 1 });

    // Facts read at other revisions than the archive's are a fault, never an answer.
    const facts = prepared(settleAgain, state, events).archived;
    if (!facts || !('lease' in facts)) throw new Error('expected archived lease facts');
    expect(() => governorDecider.decide({ ...settleAgain, archived: { lease: { ...facts.lease, revision: 0 } } }, state)).toThrow(/not those at the archived revisions/);
    expect(() => archivedFactsFrom(settleAgain, state, new Map([[1, events[1]!], [2, events[1]!]]))).toThrow(/archived settlement/);
  });

  it('refuse as expired a lease archived unsettled, even from a clock behind the stream that would find it open', () => {
    const events = when(initialGovernorState, reserve('1', { budget: budget('10'), paymentId: 'short', now: T0, ttlSeconds: 60 }));
    events.push(...when(given(events), reserve('1', { paymentId: 'two days on', now: T0 + 2 * DAY })));
    const state = given(events);
    const short = leaseIdFor('agent-1', 'short');
    expect(state.archive.find(short)).toEqual({ revision: 1, refused: false });
    const behind = settle(short, '1', { now: T0 + 10 });
    expect(outcomeOf(state, prepared(behind, state, events))).toMatchObject({ refused: { status: 409, error: 'lease_expired' } });
    // Held whole, the same lease at that clock would be settled: the archive answers by the stream's time.
    expect(outcomeOf(events.reduce(evolveWholly, initialGovernorState), behind)).toMatchObject({ events: [{ type: 'LeaseSettled' }] });
  });

  it('ignore an archived decision met again in the stream, as a repeat of a held one is', () => {
    const events = when(initialGovernorState, reserve('6', { budget: budget('10'), paymentId: 'old', now: T0 }));
    events.push(...when(given(events), reserve('6', { paymentId: 'refused', now: T0 + 1 })));
    events.push(...when(given(events), settle(leaseIdFor('agent-1', 'old'), '5', { now: T0 + 5, paymentId: 'old-settle' })));
    events.push(...when(given(events), reserve('1', { paymentId: 'a', now: T0 + 2 * DAY })));
    events.push(...when(given(events), reserve('1', { paymentId: 'b', now: T0 + 3 * DAY + 1 })));
    expect(events.map((e) => e.type)).toEqual(['BudgetOpened', 'LeaseReserved', 'ReserveRefused', 'LeaseSettled', 'LeaseReserved', 'LeaseReserved']);
    const state = given(events);
    expect(state.archive.size).toBe(2);
    expect(state.refusals.size).toBe(0);
    const repeated = given([...events, events[1]!, events[2]!, events[3]!]);
    expect(repeated.leases.size).toBe(state.leases.size);
    expect(repeated.refusals.size).toBe(0);
    expect(repeated.keptChars).toBe(state.keptChars);
    expect(usageAt(repeated, T0 + 3 * DAY + 2)).toEqual(usageAt(state, T0 + 3 * DAY + 2));
  });

  it('ignore a repeat of a lease reserved at the very cutoff it was archived by', () => {
    const events = when(initialGovernorState, reserve('1', { budget: budget('10'), paymentId: 'old', now: T0 }));
    events.push(...when(given(events), reserve('1', { paymentId: 'edge', now: T0 + 2 * DAY })));
    events.push(...when(given(events), settle(leaseIdFor('agent-1', 'edge'), '1', { now: T0 + 2 * DAY + 1, paymentId: 'edge-settle' })));
    events.push(...when(given(events), reserve('1', { paymentId: 'archiving', now: T0 + 3 * DAY })));
    const state = given(events);
    expect(state.archive.find(leaseIdFor('agent-1', 'edge'))).toBeDefined();
    const edgeReserved = events.find((e) => e.type === 'LeaseReserved' && e.data.paymentId === 'edge')!;
    const repeated = given([...events, edgeReserved]);
    expect(repeated.leases.size).toBe(state.leases.size);
    expect(repeated.keptChars).toBe(state.keptChars);
  });
});

/** What archiving took off the kept size: the whole state's figure less the archiving one's, computed from the leases it no longer holds. */
function keptCharsArchived(whole: GovernorState, archiving: GovernorState): number {
  let chars = 0;
  for (const lease of whole.leases.values()) {
    if (archiving.leases.has(lease.lease_id)) continue;
    chars += 96 + lease.lease_id.length + lease.purpose.length + lease.paymentId.length + (lease.settlement ? 48 + lease.settlement.paymentId.length : 0) - 16;
  }
  return chars;
}
