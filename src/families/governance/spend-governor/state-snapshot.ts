import { z } from 'zod';
import { HashTrie } from '../../../kernel/hash-trie.ts';
import { OrderedSumTree } from '../../../kernel/ordered-sum-tree.ts';
import { inChunks, type StateCodec, type StateDecoder } from '../../../kernel/state-snapshots.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { LeaseArchive } from './lease-archive.ts';
import type { GovernorState, Lease, WindowTally } from './state.ts';

/**
 * An agent's governor state as a snapshot holds it (kernel/state-snapshots.ts), in pieces: the
 * agent's budget and counts; its leases as tuples without member names, a thousand a piece, with
 * amounts as integer strings (an agent of 57,000 leases writes about 13 MB); its refused
 * payments; each window's spending, then its open leases by id, in order of expiry, a
 * thousand a piece (they are leases the state holds already); and its archive (lease-archive.ts)
 * as base64, 4,096 entries (64 KiB) a piece.
 *
 * Version 2 added the archive; a snapshot of version 1 is not read (kernel/state-snapshots.ts),
 * and the agent is folded from its stream's start once, archiving as it goes.
 */
const ARCHIVE_ENTRIES_A_PIECE = 4096;
const amount = z.string().regex(/^(0|[1-9][0-9]*)$/).transform(BigInt);
const count = z.number().int().nonnegative();
const settlement = z.tuple([amount, z.number(), z.string(), count]);
const lease = z.tuple([z.string(), amount, z.string(), z.number(), z.number(), z.string(), count, settlement.nullable()]);
const piece = z.union([
  z.tuple([
    z.literal('agent'),
    z
      .object({
        agent_id: z.string().optional(),
        budget: z.object({ owner: z.string(), capMicros: amount, periodSeconds: z.number(), openedAt: z.number() }).strict().optional(),
        events: count,
        keptChars: count,
        archiveDueAt: z.number().int().optional(),
        lastArchivedAt: count,
      })
      .strict(),
  ]),
  z.tuple([z.literal('leases'), z.array(lease)]),
  z.tuple([z.literal('refusals'), z.array(z.tuple([z.string(), count]))]),
  z.tuple([z.literal('window'), z.string(), amount]),
  z.tuple([z.literal('open'), z.string(), z.array(z.string())]),
  z.tuple([z.literal('archive'), z.base64()]),
]);

type EncodedLease = z.input<typeof lease>;

function encodeLease(lease: Lease): EncodedLease {
  const s = lease.settlement;
  const settled: EncodedLease[7] = s ? [s.actualMicros.toString(), s.settledAt, s.paymentId, s.revision] : null;
  return [lease.lease_id, lease.amountMicros.toString(), lease.purpose, lease.reservedAt, lease.expiresAt, lease.paymentId, lease.revision, settled];
}

function* encode(state: GovernorState): Generator<JsonValue> {
  const { agent_id, budget, events, keptChars, archiveDueAt, lastArchivingRevision } = state;
  yield [
    'agent',
    {
      ...(agent_id === undefined ? {} : { agent_id }),
      ...(budget === undefined ? {} : { budget: { ...budget, capMicros: budget.capMicros.toString() } }),
      events,
      keptChars,
      ...(archiveDueAt === undefined ? {} : { archiveDueAt }),
      // The snapshot's name for lastArchivingRevision since codec v2.
      lastArchivedAt: lastArchivingRevision,
    },
  ];
  for (const chunk of inChunks(state.leases.values())) yield ['leases', chunk.map(encodeLease)];
  for (const chunk of inChunks(state.refusals.entries())) yield ['refusals', chunk];
  for (const [key, tally] of state.windows.entries()) {
    yield ['window', key, tally.spentMicros.toString()];
    for (const chunk of inChunks(tally.open.valuesAbove(-Infinity))) yield ['open', key, chunk.map((open) => open.lease_id)];
  }
  for (const bytes of state.archive.bytesInOrder(ARCHIVE_ENTRIES_A_PIECE)) yield ['archive', bytes.toString('base64')];
}

type Agent = Pick<GovernorState, 'agent_id' | 'budget' | 'events' | 'keptChars' | 'archiveDueAt' | 'lastArchivingRevision'>;

function decoder(): StateDecoder<GovernorState> {
  let agent: Agent | undefined;
  let leases = HashTrie.empty<Lease>();
  let refusals = HashTrie.empty<number>();
  const windows = new Map<string, { spentMicros: bigint; open: string[] }>();
  const archived: Buffer[] = [];
  return {
    add(encoded) {
      const parsed = piece.parse(encoded);
      if ((parsed[0] === 'agent') === (agent !== undefined)) throw new Error('a governor snapshot begins with its agent, once');
      switch (parsed[0]) {
        case 'agent': {
          const { agent_id, budget, archiveDueAt, lastArchivedAt, ...counts } = parsed[1];
          agent = { ...(agent_id === undefined ? {} : { agent_id }), ...(budget === undefined ? {} : { budget }), ...(archiveDueAt === undefined ? {} : { archiveDueAt }), lastArchivingRevision: lastArchivedAt, ...counts };
          break;
        }
        case 'leases':
          for (const [lease_id, amountMicros, purpose, reservedAt, expiresAt, paymentId, revision, s] of parsed[1]) {
            const settled = s ? { settlement: { actualMicros: s[0], settledAt: s[1], paymentId: s[2], revision: s[3] } } : {};
            const held: Lease = { lease_id, amountMicros, purpose, reservedAt, expiresAt, paymentId, revision, ...settled };
            leases = leases.set(lease_id, held);
          }
          break;
        case 'refusals':
          for (const [paymentId, revision] of parsed[1]) refusals = refusals.set(paymentId, revision);
          break;
        case 'window':
          windows.set(parsed[1], { spentMicros: parsed[2], open: [] });
          break;
        case 'open':
          windowNamed(windows, parsed[1]).open.push(...parsed[2]);
          break;
        case 'archive':
          archived.push(Buffer.from(parsed[1], 'base64'));
          break;
      }
    },
    finish() {
      if (!agent) throw new Error('a governor snapshot without its agent');
      let tallies = HashTrie.empty<WindowTally>();
      for (const [key, { spentMicros, open }] of windows) tallies = tallies.set(key, { spentMicros, open: openLeases(key, open, leases) });
      return { ...agent, leases, refusals, windows: tallies, archive: LeaseArchive.ofBytes(archived) };
    },
  };
}

function windowNamed<W>(windows: Map<string, W>, key: string): W {
  const window = windows.get(key);
  if (!window) throw new Error(`open leases of window ${key} before the window`);
  return window;
}

/** A window's open leases, by id in order of expiry, as the tree evolve keeps them. */
function openLeases(key: string, ids: string[], leases: HashTrie<Lease>): OrderedSumTree<Lease> {
  const items = ids.map((id) => {
    const held = leases.get(id);
    if (!held || held.settlement) throw new Error(`window ${key}: open lease ${id} is not an unsettled lease of the state`);
    return { rank: held.expiresAt, key: held.lease_id, value: held, weight: held.amountMicros };
  });
  return OrderedSumTree.ofOrdered(items);
}

export const governorStateCodec: StateCodec<GovernorState> = { kind: 'spend-governor', version: 2, encode, decoder };
