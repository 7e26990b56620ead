import { z } from 'zod';
import { HashTrie } from '../../../kernel/hash-trie.ts';
import { OrderedSumTree } from '../../../kernel/ordered-sum-tree.ts';
import type { StateCodec } from '../../../kernel/state-snapshots.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import type { GovernorState, Lease, WindowTally } from './state.ts';

/**
 * An agent's governor state as a snapshot holds it (kernel/state-snapshots.ts): its leases as
 * tuples (an agent of 57,000 leases writes some 9 MB, not half again as much with each member
 * named), amounts as integer strings, and each window's open leases by id, since they are
 * leases the state holds already.
 */
const amount = z.string().regex(/^(0|[1-9][0-9]*)$/).transform(BigInt);
const count = z.number().int().nonnegative();
const settlement = z.tuple([amount, z.number(), z.string(), count]);
const lease = z.union([
  z.tuple([z.string(), amount, z.string(), z.number(), z.number(), z.string(), count]),
  z.tuple([z.string(), amount, z.string(), z.number(), z.number(), z.string(), count, settlement]),
]);
const encodedGovernorState = z
  .object({
    agent_id: z.string().optional(),
    budget: z.object({ owner: z.string(), capMicros: amount, periodSeconds: z.number(), openedAt: z.number() }).strict().optional(),
    leases: z.array(lease),
    refusals: z.array(z.tuple([z.string(), count])),
    windows: z.array(z.tuple([z.string(), amount, z.array(z.string())])),
    events: count,
    keptChars: count,
  })
  .strict();

type EncodedLease = z.input<typeof lease>;

function encodeLease(lease: Lease): EncodedLease {
  const figures: EncodedLease = [lease.lease_id, lease.amountMicros.toString(), lease.purpose, lease.reservedAt, lease.expiresAt, lease.paymentId, lease.revision];
  const s = lease.settlement;
  return s ? [...figures, [s.actualMicros.toString(), s.settledAt, s.paymentId, s.revision]] : figures;
}

function encode(state: GovernorState): JsonValue {
  const windows: JsonValue[] = [];
  for (const [key, tally] of state.windows.entries()) {
    windows.push([key, tally.spentMicros.toString(), tally.open.valuesAbove(-Infinity).map((open) => open.lease_id)]);
  }
  return {
    ...(state.agent_id === undefined ? {} : { agent_id: state.agent_id }),
    ...(state.budget === undefined ? {} : { budget: { ...state.budget, capMicros: state.budget.capMicros.toString() } }),
    leases: Array.from(state.leases.values(), encodeLease),
    refusals: Array.from(state.refusals.entries()),
    windows,
    events: state.events,
    keptChars: state.keptChars,
  };
}

function decode(encoded: JsonValue): GovernorState {
  const { leases: encodedLeases, refusals, windows: encodedWindows, ...rest } = encodedGovernorState.parse(encoded);
  let leases = HashTrie.empty<Lease>();
  for (const [lease_id, amountMicros, purpose, reservedAt, expiresAt, paymentId, revision, s] of encodedLeases) {
    const settled = s ? { settlement: { actualMicros: s[0], settledAt: s[1], paymentId: s[2], revision: s[3] } } : {};
    leases = leases.set(lease_id, { lease_id, amountMicros, purpose, reservedAt, expiresAt, paymentId, revision, ...settled });
  }
  let windows = HashTrie.empty<WindowTally>();
  for (const [key, spentMicros, openIds] of encodedWindows) {
    let open = OrderedSumTree.empty<Lease>();
    for (const id of openIds) {
      const held = leases.get(id);
      if (!held || held.settlement) throw new Error(`window ${key}: open lease ${id} is not an unsettled lease of the state`);
      open = open.insert(held.expiresAt, held.lease_id, held, held.amountMicros);
    }
    windows = windows.set(key, { spentMicros, open });
  }
  let refused = HashTrie.empty<number>();
  for (const [paymentId, revision] of refusals) refused = refused.set(paymentId, revision);
  const { agent_id, budget, ...counts } = rest;
  return { ...(agent_id === undefined ? {} : { agent_id }), ...(budget === undefined ? {} : { budget }), leases, refusals: refused, windows, ...counts };
}

export const governorStateCodec: StateCodec<GovernorState> = { kind: 'spend-governor', version: 1, encode, decode };
