import { describe, expect, it } from 'vitest';
import { auditEventLog } from '../../src/audit/audit.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import type { EventStore } from '../../src/events/port.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { signCheckpoint } from '../../src/transparency/c2sp-checkpoint.ts';
import { CHECKPOINT_ISSUED, RESULT_LOG_STREAM, type CheckpointIssued } from '../../src/transparency/events.ts';
import { startResultLog } from '../../src/transparency/result-log.ts';
import { createLogger } from '../../src/logger.ts';
import { loadSettings } from '../../src/config.ts';
import { appendSaga, SECRET } from './fixtures.ts';

const keyring = createKeyring(SECRET);
const log = createLogger(loadSettings({ LOG_LEVEL: 'silent' }));
const audit = (store: EventStore) => auditEventLog({ store, keyring, chainRules: [] });

/** A log with results and the checkpoints the running service would have issued over them. */
async function loggedStore(rounds: number[]): Promise<{ store: EventStore; last: CheckpointIssued }> {
  const store = createMemoryEventStore();
  const resultLog = await startResultLog(store, keyring, { checkpointIntervalMs: 3_600_000, log });
  let last: CheckpointIssued | undefined;
  let n = 0;
  for (const results of rounds) {
    let position = 0n;
    for (let i = 0; i < results; i++) position = BigInt((await appendSagaAt(store, n++)).toString());
    await resultLog.caughtUpTo(position, 1000);
    last = (await resultLog.issueCheckpoint()) ?? last;
  }
  await resultLog.stop();
  return { store, last: last! };
}

async function appendSagaAt(store: EventStore, n: number): Promise<bigint> {
  const stream = await appendSaga(store, keyring, { n });
  const [signed] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
  return signed!.position;
}

async function appendCheckpoint(store: EventStore, checkpoint: CheckpointIssued) {
  await store.appendToStream(RESULT_LOG_STREAM, [{ id: crypto.randomUUID(), type: CHECKPOINT_ISSUED, data: checkpoint }], { expectedRevision: 'any' });
}

const signer = (secret = SECRET, origin: string) => {
  const k = createKeyring(secret);
  return { name: origin, publicKey: Buffer.from(k.publicKey('log').publicKeyHex, 'hex'), sign: (m: Uint8Array) => Buffer.from(k.sign('log', m), 'hex') };
};
const forged = (last: CheckpointIssued, changes: Partial<CheckpointIssued>, secret = SECRET): CheckpointIssued => {
  const c = { ...last, ...changes };
  return { ...c, note: signCheckpoint(signer(secret, c.origin), c.origin, c.tree_size, c.root_hash, c.issued_at) };
};

describe('audit: the result log', () => {
  it('rebuilds the tree from the results and checks every checkpoint on the way', async () => {
    const { store } = await loggedStore([3, 1, 4]);
    const report = await audit(store);
    expect(report).toMatchObject({ ok: true, results: 8, checkpoints: 3 });
  });

  it('finds a checkpoint whose root the results do not give, even when the log key signed it', async () => {
    const { store, last } = await loggedStore([2, 2]);
    await appendCheckpoint(store, forged(last, { root_hash: 'ab'.repeat(32), issued_at: last.issued_at + 1 }));
    const report = await audit(store);
    expect(report.failuresByKind).toEqual({ 'result-log': 1 });
    expect(report.failures[0]!.message).toMatch(/the results in the log give/);
  });

  it('finds a checkpoint signed by another key, one covering results not yet written, and one whose note and event disagree', async () => {
    const { store, last } = await loggedStore([2]);
    await appendCheckpoint(store, forged(last, { issued_at: last.issued_at + 1 }, 'another-secret-0123456789abcdef0123456789'));
    await appendCheckpoint(store, forged(last, { tree_size: 5, issued_at: last.issued_at + 2 }));
    await appendCheckpoint(store, { ...last, tree_size: 1 });
    const report = await audit(store);
    expect(report.failureCount).toBe(3);
    expect(report.failures.map((f) => f.message)).toEqual([
      expect.stringMatching(/does not verify|no valid signature/),
      expect.stringMatching(/only 2 results precede it/),
      expect.stringMatching(/does not say what the checkpoint event says/),
    ]);
  });

  it('finds time running backwards between checkpoints', async () => {
    const { store, last } = await loggedStore([1, 1]);
    await appendSagaAt(store, 99);
    await appendCheckpoint(store, forged(last, { tree_size: 3, root_hash: await rootOf(store, 3), issued_at: last.issued_at - 100 }));
    const report = await audit(store);
    expect(report.failures.map((f) => f.message)).toEqual([expect.stringMatching(/before the previous one/)]);
  });
  it('checks a checkpoint that names a size far behind the results before it, and finds a tree that shrank', async () => {
    // As after a restart that folds the tree again: the checkpoint lands after results it does not cover.
    const { store, last } = await loggedStore([2]);
    for (let n = 0; n < 40; n++) await appendSagaAt(store, 100 + n);
    await appendCheckpoint(store, forged(last, { tree_size: 5, root_hash: await rootOf(store, 5), issued_at: last.issued_at + 1 }));
    await appendCheckpoint(store, forged(last, { tree_size: 41, root_hash: await rootOf(store, 41), issued_at: last.issued_at + 2 }));
    expect(await audit(store)).toMatchObject({ ok: true, results: 42, checkpoints: 3 });

    await appendCheckpoint(store, forged(last, { tree_size: 7, root_hash: await rootOf(store, 7), issued_at: last.issued_at + 3 }));
    await appendCheckpoint(store, forged(last, { tree_size: 42, root_hash: await rootOf(store, 42), issued_at: last.issued_at + 4 }));
    const report = await audit(store);
    expect(report.failures.map((f) => f.message)).toEqual(['the tree shrank from 41 to 7 leaves']);
  });

  it('after a checkpoint whose root is wrong, checks the next against the results all the same', async () => {
    const { store, last } = await loggedStore([3]);
    await appendSagaAt(store, 50);
    await appendCheckpoint(store, forged(last, { tree_size: 4, root_hash: 'cd'.repeat(32), issued_at: last.issued_at + 1 }));
    await appendSagaAt(store, 51);
    await appendCheckpoint(store, forged(last, { tree_size: 5, root_hash: await rootOf(store, 5), issued_at: last.issued_at + 2 }));
    const report = await audit(store);
    expect(report.failures.map((f) => f.message)).toEqual([expect.stringMatching(/^checkpoint root (cd){32} for 4 leaves; the results in the log give [0-9a-f]{64}$/)]);
    expect(report.checkpoints).toBe(3);
  });
});

async function rootOf(store: EventStore, size: number): Promise<string> {
  const resultLog = await startResultLog(store, keyring, { checkpointIntervalMs: 3_600_000, log });
  const all = [];
  for await (const e of store.readAll()) all.push(e);
  await resultLog.caughtUpTo(all.at(-1)!.position, 1000);
  const root = resultLog.consistency(size, size).first_root;
  await resultLog.stop();
  return root;
}
