import type { HashTrie } from '../../../kernel/hash-trie.ts';
import type { OrderedSumTree } from '../../../kernel/ordered-sum-tree.ts';
import type { LeaseArchive } from './lease-archive.ts';

/** What an agent's governor state holds (evolved in decider.ts, written to snapshots by state-snapshot.ts). */
export interface Budget {
  owner: string;
  capMicros: bigint;
  periodSeconds: number;
  openedAt: number;
}

export interface Lease {
  lease_id: string;
  amountMicros: bigint;
  purpose: string;
  reservedAt: number;
  expiresAt: number;
  paymentId: string;
  /** Of its LeaseReserved event in the agent's stream, where its signed record is (records are read back: commands.ts). */
  revision: number;
  settlement?: { actualMicros: bigint; settledAt: number; paymentId: string; revision: number };
}

/**
 * What one budget window holds: what its settled leases spent, and its leases not settled yet.
 * Kept up to date by `evolve`, so a decision reads its window's figures instead of every lease
 * the agent ever had.
 */
export interface WindowTally {
  spentMicros: bigint;
  /**
   * Unsettled leases reserved in the window, expired or not, ranked by `expiresAt` and weighed by
   * amount: what the window holds reserved at `now` is the weight of those expiring after it,
   * found in a walk down the tree however many leases have expired unsettled.
   */
  open: OrderedSumTree<Lease>;
}

export interface GovernorState {
  agent_id?: string;
  budget?: Budget;
  /** The agent's leases not archived, by lease id: the last day's, and those still open. */
  leases: HashTrie<Lease>;
  /** The revisions of the signed BUDGET-EXCEEDED records not archived, by payment, so a resumed call answers the same. */
  refusals: HashTrie<number>;
  /** By the window's start (`windowStartOf`), as a decimal string: the windows not over a day before the agent's latest event. */
  windows: HashTrie<WindowTally>;
  /** The decisions nothing can change any more, older than a day (evolve's archiving): 16 bytes each. */
  archive: LeaseArchive;
  /** The event time from which the next archiving is due: a day after the last one (or after the budget opened). */
  archiveDueAt?: number;
  /** The revision the last archiving was made at: the refusals before it go at the next one. */
  lastArchivingRevision: number;
  /** Events folded: the revision of the next one. */
  events: number;
  /** How much of them it keeps, in characters of JSON (keptCharsOf): what the kept states' bound counts. */
  keptChars: number;
}
