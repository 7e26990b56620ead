import type { RecordedEvent } from '../events/port.ts';
import type { AuditFailure } from '../kernel/audit-failure.ts';
import type { LeafStore, StoredLeaf } from '../transparency/leaf-store.ts';
import { damaged } from '../transparency/leaf-records.ts';
import { MerkleLog } from '../signing/merkle-log.ts';
import { DigestRunCheck } from './digest-run-check.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const BATCH = 256;

/**
 * Checks the service's result log store (a cache it serves proofs from) against the replay: each
 * stored leaf is the ResultSigned event of its rank, with its digest, signing key and position,
 * each stored inner node is the hash the replayed leaves give, and the digest lookup finds each
 * result's first leaf (digest-run-check.ts). A store that disagrees would
 * serve proofs that fail for their users; the checkpoints alone would not name it. Only what the
 * store's last commit covers is compared: a store read beside its service may be behind the log.
 */
export class ResultStoreCheck {
  /** Leaves compared with the store. */
  checked = 0;
  private leaves = 0;
  private failures: AuditFailure[] = [];
  private where: { stream: string; position: bigint } = { stream: '$all', position: -1n };
  /** Grows by the replayed leaves; hands each completed node of a stored level to `compareNode`. */
  private readonly tree: MerkleLog;
  private batch: Array<StoredLeaf | undefined> = [];
  private batchFrom = 0;
  private readonly digestRuns: DigestRunCheck;

  constructor(private readonly store: LeafStore) {
    this.digestRuns = new DigestRunCheck(store);
    const unread = (): never => {
      throw new Error('the replayed tree reads nothing back');
    };
    this.tree = new MerkleLog(unread, { lowestLevel: store.lowestLevel, push: (level, index, hash) => this.compareNode(level, index, hash), at: unread }, 0);
  }

  /** The next ResultSigned event of the log, in order, and its leaf's hash; the failures it shows. */
  observeResult(event: RecordedEvent, leafHash: Uint8Array): AuditFailure[] {
    const data = event.data as { keyFamily?: unknown; keyId?: unknown; sha256?: unknown };
    if (typeof data.keyFamily !== 'string' || typeof data.keyId !== 'string' || typeof data.sha256 !== 'string') return []; // the result's own check reports it
    this.failures = [];
    this.where = { stream: event.stream, position: event.position };
    const leaf = this.leaves++;
    if (leaf < this.store.size) {
      this.checked++;
      const stored = this.compareLeaf(leaf, { sha256: data.sha256, key: `${data.keyFamily} ${data.keyId}`, position: Number(event.position) });
      for (const problem of this.digestRuns.observe(leaf, stored?.sha256)) this.fail(problem);
    }
    this.tree.appendLeafHash(leafHash);
    return this.failures;
  }

  /** The digest lookup's runs checked, and the entries they held. */
  get digestRunsChecked(): { runs: number; entries: number } {
    return { runs: this.digestRuns.runs, entries: this.digestRuns.entries };
  }

  /** After the replay: a store holding more leaves than the log has results. */
  finish(): AuditFailure[] {
    if (this.leaves >= this.store.size) return [];
    return [{ kind: 'result-store', stream: '$all', message: `the result log's store holds ${this.store.size} leaves; the log has ${this.leaves} results` }];
  }

  /** Compares stored leaf `index` with what the log gives; the stored leaf, unless it is damaged. */
  private compareLeaf(index: number, expected: { sha256: string; key: string; position: number }): StoredLeaf | undefined {
    try {
      const stored = this.storedLeaf(index);
      const found = { sha256: hex(stored.sha256), key: stored.key, position: stored.position };
      if (found.sha256 !== expected.sha256 || found.key !== expected.key || found.position !== expected.position)
        this.fail(`leaf ${index} of the result log's store is ${JSON.stringify(found)}; the log gives ${JSON.stringify(expected)}`);
      return stored;
    } catch (err) {
      this.fail((err as Error).message);
      return undefined;
    }
  }

  /** Leaf `index` of the store, read BATCH at a time: one read of the file for many results. */
  private storedLeaf(index: number): StoredLeaf {
    if (index < this.batchFrom || index >= this.batchFrom + this.batch.length) {
      this.batchFrom = index;
      this.batch = this.store.leavesFrom(index, Math.min(BATCH, this.store.size - index));
    }
    const leaf = this.batch[index - this.batchFrom];
    if (!leaf) throw new Error(damaged(index));
    return leaf;
  }

  private compareNode(level: number, index: number, hash: Uint8Array): void {
    if ((index + 1) * 2 ** level > this.store.size) return;
    try {
      if (hex(this.store.at(level, index)) !== hex(hash)) this.fail(`node ${index} of level ${level} of the result log's store is not the hash of its leaves`);
    } catch (err) {
      this.fail((err as Error).message);
    }
  }

  private fail(message: string): void {
    this.failures.push({ kind: 'result-store', ...this.where, message });
  }
}
