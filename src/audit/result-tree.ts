import type { RecordedEvent } from '../events/port.ts';
import type { AuditFailure } from '../kernel/audit-failure.ts';
import { verifyConsistencyProof } from '../signing/rfc6962-merkle.ts';
import { openCheckpoint } from '../transparency/c2sp-checkpoint.ts';
import { checkpointIssuedSchema, type CheckpointIssued } from '../transparency/events.ts';
import { MerkleLog } from '../transparency/merkle-log.ts';
import { resultLeafBytes } from '../transparency/result-leaf.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * Rebuilds the result log's tree from the ResultSigned events, in log order, and checks every
 * checkpoint recorded on the way: its note opens with the log key, it says what its event says,
 * its root is the rebuilt tree's root at its size (so it covers only results written before it),
 * its time does not run backwards, and it is consistent with the checkpoint before it.
 */
export class ResultTreeCheck {
  private readonly tree = new MerkleLog();
  private previous: CheckpointIssued | undefined;
  checkpoints = 0;

  constructor(private readonly logPublicKeys: (keyId: string) => string | undefined) {}

  get leaves(): number {
    return this.tree.size;
  }

  observeResult(event: RecordedEvent): void {
    const data = event.data as { keyFamily?: unknown; keyId?: unknown; sha256?: unknown };
    // A malformed ResultSigned is reported by the result check; the leaf keeps the log's order.
    this.tree.append(resultLeafBytes({ key_family: String(data.keyFamily), key_id: String(data.keyId), sha256: String(data.sha256) }));
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
    if (treeSize > this.tree.size) return fail(`checkpoint of ${treeSize} leaves, but only ${this.tree.size} results precede it in the log`);
    const rebuilt = hex(this.tree.root(treeSize));
    if (rebuilt !== rootHash) return fail(`checkpoint root ${rootHash} for ${treeSize} leaves; the results in the log give ${rebuilt}`);
    const failures: AuditFailure[] = [];
    const previous = this.previous;
    if (previous) {
      if (issuedAt < previous.issued_at) failures.push(...fail(`checkpoint issued at ${issuedAt}, before the previous one (${previous.issued_at})`));
      if (treeSize < previous.tree_size) failures.push(...fail(`the tree shrank from ${previous.tree_size} to ${treeSize} leaves`));
      else {
        const proof = { firstSize: previous.tree_size, secondSize: treeSize, path: this.tree.consistencyProof(previous.tree_size, treeSize).map(hex) };
        if (!verifyConsistencyProof(previous.root_hash, rootHash, proof)) failures.push(...fail(`checkpoint of ${treeSize} leaves is not consistent with the previous one of ${previous.tree_size}`));
      }
    }
    this.previous = checkpoint;
    return failures;
  }
}
