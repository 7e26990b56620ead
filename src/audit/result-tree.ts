import type { RecordedEvent } from '../events/port.ts';
import type { AuditFailure } from '../kernel/audit-failure.ts';
import { openCheckpoint } from '../transparency/c2sp-checkpoint.ts';
import { checkpointIssuedSchema, type CheckpointIssued } from '../transparency/events.ts';
import { CompactRange } from '../transparency/compact-range.ts';
import { ByteColumn } from '../signing/byte-column.ts';
import { resultLeafHash } from '../transparency/result-leaf.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * Rebuilds the result log's tree from the ResultSigned events, in log order, and checks every
 * checkpoint recorded on the way: its note opens with the log key, it says what its event says,
 * its root is the rebuilt tree's root at its size (so it covers only results written before it),
 * its time does not run backwards, and its tree does not shrink.
 *
 * The tree is not kept. What is kept is its right edge at the size of the last checkpoint that
 * passed (O(log n) hashes) and the leaf hashes after it: a checkpoint's size lies at or after
 * its predecessor's, so its root is that edge grown by the leaves up to its size. Memory is 32
 * bytes a result since the last good checkpoint (a checkpoint interval's worth), not 64 bytes a
 * result of the whole log. Every good checkpoint's root is a root of the one rebuilt leaf
 * sequence, so each is consistent with every earlier one by construction: no consistency proof
 * is built to be checked.
 */
export class ResultTreeCheck {
  /** The tree's right edge at the last good checkpoint's size. */
  private checked = CompactRange.empty();
  /** Leaf hashes from `checked.size` on. */
  private after = new ByteColumn(32);
  /**
   * The last edge built, at or after `checked`: after a checkpoint that failed, the next one
   * grows from here, so a log whose every checkpoint fails still costs one append a leaf.
   */
  private built = this.checked;
  private previous: CheckpointIssued | undefined;
  checkpoints = 0;

  constructor(private readonly logPublicKeys: (keyId: string) => string | undefined) {}

  get leaves(): number {
    return this.checked.size + this.after.length;
  }

  /** Adds the result's leaf; returns the leaf's hash. */
  observeResult(event: RecordedEvent): Uint8Array {
    const data = event.data as { keyFamily?: unknown; keyId?: unknown; sha256?: unknown };
    // A malformed ResultSigned is reported by the result check; the leaf keeps the log's order.
    const hash = resultLeafHash({ key_family: String(data.keyFamily), key_id: String(data.keyId), sha256: String(data.sha256) });
    this.after.push(hash);
    return hash;
  }

  /** The right edge at `size` (at least the last good checkpoint's, at most the leaves seen). */
  private edgeAt(size: number): CompactRange {
    const edge = (this.built.size <= size ? this.built : this.checked).copy();
    for (let i = edge.size - this.checked.size; edge.size < size; i++) edge.append(this.after.at(i));
    this.built = edge;
    return edge;
  }

  /** A checkpoint of `edge.size` leaves passed: later checkpoints grow from its edge. */
  private advanceTo(edge: CompactRange): void {
    const kept = new ByteColumn(32);
    for (let i = edge.size - this.checked.size; i < this.after.length; i++) kept.push(this.after.at(i));
    this.checked = edge;
    this.built = edge;
    this.after = kept;
  }

  observeCheckpoint(event: RecordedEvent): AuditFailure[] {
    const at = { stream: event.stream, position: event.position, revision: event.revision, eventId: event.id };
    const fail = (message: string): AuditFailure[] => [{ kind: 'result-log', ...at, message }];
    const parsed = checkpointIssuedSchema.safeParse(event.data);
    if (!parsed.success) return fail('CheckpointIssued does not match its schema');
    const checkpoint = parsed.data;
    this.checkpoints++;
    const publicKey = this.logPublicKeys(checkpoint.key_id);
    if (!publicKey) return fail(`checkpoint signed with key ${checkpoint.key_id}, which is no log key of this service`);
    const opened = openCheckpoint(checkpoint.note, checkpoint.origin, publicKey);
    if (!opened.valid) return fail(`checkpoint of ${checkpoint.tree_size} leaves: ${opened.reason}`);
    const { treeSize, rootHash, issuedAt, origin } = opened.checkpoint;
    if (treeSize !== checkpoint.tree_size || rootHash !== checkpoint.root_hash || issuedAt !== checkpoint.issued_at || origin !== checkpoint.origin)
      return fail('the signed note does not say what the checkpoint event says');
    if (treeSize > this.leaves) return fail(`checkpoint of ${treeSize} leaves, but only ${this.leaves} results precede it in the log`);
    // A tree smaller than the last good checkpoint's is a failure whatever its root (which the
    // right edge kept here can no longer give).
    if (treeSize < this.checked.size) return fail(`the tree shrank from ${this.checked.size} to ${treeSize} leaves`);
    const edge = this.edgeAt(treeSize);
    const rebuilt = hex(edge.root());
    if (rebuilt !== rootHash) return fail(`checkpoint root ${rootHash} for ${treeSize} leaves; the results in the log give ${rebuilt}`);
    const failures: AuditFailure[] = [];
    if (this.previous && issuedAt < this.previous.issued_at) failures.push(...fail(`checkpoint issued at ${issuedAt}, before the previous one (${this.previous.issued_at})`));
    this.advanceTo(edge);
    this.previous = checkpoint;
    return failures;
  }
}
