import { KeyedRuns, keyWordsOfHex } from '../../../kernel/keyed-runs.ts';

/**
 * The decisions of an agent's past that nothing can change any more (a settled lease, a lease
 * expired unsettled long ago, a refused reserve), as the governor's state keeps them once they
 * are old: 16 bytes each, where the state held a few hundred. An entry is the first 8 bytes of
 * the decision's lease-id hash (leaseIdFor: the same for a reserve's lease and for its refusal)
 * and where its events lie in the agent's stream; what they decided is read back from there
 * when a call names one (commands.ts), and the decider checks what is read against the entry.
 *
 * Kept in the kernel's sorted runs (kernel/keyed-runs.ts), immutable as a state is.
 */
export interface ArchivedDecision {
  /** The revision of the LeaseReserved or ReserveRefused event. */
  revision: number;
  /** Of a lease: the revision of its LeaseSettled event, if it was settled. */
  settledRevision?: number;
  refused: boolean;
}

/** Revisions are u32 in an entry; these two values of its last word are markers, not revisions. */
const UNSETTLED = 0xffff_ffff;
const REFUSED = 0xffff_fffe;
/** The largest revision an entry holds: an agent's stream of more events cannot be archived. */
export const MAX_ARCHIVED_REVISION = REFUSED - 1;
const KEY_HEX = 16;
/** An entry: the key's two words, the revision, the settlement's revision or a marker. */
const SHAPE = { keyWords: 2, valueWords: 2 };
const WORDS = 4;

/** The archive key of a lease id (`<agent>:<24 hex>`, leaseIdFor): the first 8 bytes of its hash. */
export function archiveKeyOf(leaseId: string): string {
  const at = leaseHashStart(leaseId);
  if (at === undefined) throw new Error(`not a lease id: ${leaseId}`);
  return leaseId.slice(at, at + KEY_HEX);
}

/**
 * Where the 24 lowercase hex digits of a lease id's hash begin (after its last `:`), or undefined
 * when the id does not end in them. Asked for many leases evolve folds: checked without a regular
 * expression.
 */
export function leaseHashStart(leaseId: string): number | undefined {
  const at = leaseId.lastIndexOf(':') + 1;
  return at > 0 && leaseId.length - at === 24 && isLowerHex(leaseId, at) ? at : undefined;
}

function isLowerHex(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

export interface ArchiveEntry {
  key: string;
  decision: ArchivedDecision;
}

export class LeaseArchive {
  private constructor(private readonly runs: KeyedRuns) {}

  static empty(): LeaseArchive {
    return new LeaseArchive(KeyedRuns.empty(SHAPE));
  }

  /** The archive whose entries `bytesInOrder` yielded: a snapshot's (KeyedRuns.ofBytes). */
  static ofBytes(chunks: Iterable<Uint8Array>): LeaseArchive {
    return new LeaseArchive(KeyedRuns.ofBytes(SHAPE, chunks));
  }

  /** The entries in key order, `perChunk` a chunk, as bytes: 16 each, four big-endian words (the key's two, the revision, the settlement's revision or a marker). */
  bytesInOrder(perChunk: number): Generator<Buffer> {
    return this.runs.bytesInOrder(perChunk);
  }

  get size(): number {
    return this.runs.size;
  }

  /** The decision archived under the lease id's key, if any. */
  find(leaseId: string): ArchivedDecision | undefined {
    return this.runs.isEmpty ? undefined : this.findKey(archiveKeyOf(leaseId));
  }

  /** The decision archived under this key (archiveKeyOf), if any. */
  findKey(key: string): ArchivedDecision | undefined {
    const value = this.runs.find(keyWordsOfHex(key, 2));
    return value && decisionOf(value[0]!, value[1]!);
  }

  /**
   * This archive with the entries added. A key archived already, or twice in `entries`, is a
   * fault of the caller (which leaves such a rare lease whole in the state instead): it throws,
   * and nothing is added.
   */
  with(entries: readonly ArchiveEntry[]): LeaseArchive {
    const words = new Uint32Array(entries.length * WORDS);
    entries.forEach(({ key, decision }, i) => {
      if (key.length !== KEY_HEX || !isLowerHex(key, 0)) throw new Error(`archive key ${key}: 16 hex digits expected`);
      if (!Number.isInteger(decision.revision) || decision.revision < 0 || decision.revision > MAX_ARCHIVED_REVISION) throw new Error(`archive revision ${decision.revision} out of range`);
      const settled = decision.settledRevision;
      if (settled !== undefined && (decision.refused || !Number.isInteger(settled) || settled <= decision.revision || settled > MAX_ARCHIVED_REVISION)) {
        throw new Error(`archive settlement revision ${settled} of revision ${decision.revision} out of range`);
      }
      words.set(keyWordsOfHex(key, 2), i * WORDS);
      words[i * WORDS + 2] = decision.revision;
      words[i * WORDS + 3] = decision.refused ? REFUSED : (settled ?? UNSETTLED);
    });
    const runs = this.runs.with(words);
    return runs === this.runs ? this : new LeaseArchive(runs);
  }
}

function decisionOf(revision: number, last: number): ArchivedDecision {
  if (last === REFUSED) return { revision, refused: true };
  return { revision, refused: false, ...(last === UNSETTLED ? {} : { settledRevision: last }) };
}
