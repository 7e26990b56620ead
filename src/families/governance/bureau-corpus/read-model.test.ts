import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../../events/memory-store.ts';
import type { EventStore, RecordedEvent } from '../../../events/port.ts';
import { createKeyring } from '../../../signing/keyring.ts';
import { merkleTree } from '../../../signing/rfc6962-merkle.ts';
import { canonicalBytes, type JsonObject } from '../../../signing/rfc8785.ts';
import { auditStreamName, GOVERNANCE_EVENT_TYPES } from '../events.ts';
import { corpusPage, defectCounts } from './anchor.ts';
import { bureauCorpusReadModel } from './corpus.ts';

const keyring = createKeyring('corpus-test-secret-0123456789abcdef');
const warnings: string[] = [];
const errors: string[] = [];
const log = {
  info: () => {},
  warn: (_fields: Record<string, unknown>, message: string) => void warnings.push(message),
  error: (_fields: Record<string, unknown>, message: string) => void errors.push(message),
};
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bureau-corpus-test-'));
  warnings.length = 0;
  errors.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A log with the corpus's audits among other events, and the records in corpus order. */
async function appendAudits(store: EventStore, records: JsonObject[], count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const n = records.length;
    const record: JsonObject = { kind: 'bureau.audit', auditId: `audit-${n}`, defects: n % 3 === 0 ? ['X402-1'] : [], n };
    records.push(record);
    const data = { auditId: `audit-${n}`, paymentId: `payment-${n}`, record, sha256: '0'.repeat(64), ed25519Sig: '0'.repeat(128), keyId: '0'.repeat(16) };
    await store.appendToStream(auditStreamName(`audit-${n}`), [{ id: randomUUID(), type: GOVERNANCE_EVENT_TYPES.bureauAuditRecorded, data }]);
    await store.appendToStream(`payment-${randomUUID()}`, [0, 1, 2].map((k) => ({ id: randomUUID(), type: `Other${k}`, data: { k } })));
  }
}

/** The store, telling every event position it reads or delivers to the corpus. */
function watched(store: EventStore, seen: bigint[]): EventStore {
  return {
    ...store,
    async *readAll(options) {
      for await (const event of store.readAll(options)) {
        seen.push(event.position);
        yield event;
      }
    },
    subscribeToAll: (options) =>
      store.subscribeToAll({
        ...options,
        onEvent: (event: RecordedEvent) => (seen.push(event.position), options.onEvent(event)),
        onPassed: (position: bigint) => (seen.push(position), options.onPassed?.(position)),
      }),
  };
}

async function expectCorpusOf(store: EventStore, records: JsonObject[]): Promise<void> {
  const page = await corpusPage(store, keyring, 'http://test', 1, 5);
  expect(page.total).toBe(records.length);
  expect(page.anchor.evidenceCore['rootHash']).toBe(merkleTree(records.map((r) => canonicalBytes(r))).rootHex());
  expect(page.items.map((item) => item['evidenceCore'])).toEqual(records.slice(-5).reverse());
  expect((await defectCounts(store)).defects).toEqual({ 'X402-1': records.filter((r) => (r['defects'] as string[]).length > 0).length });
}

/** A run of the service on `store`: the corpus started, read once (it holds `records`), and stopped (saved). */
async function runOnce(store: EventStore, records: JsonObject[]): Promise<void> {
  const model = await bureauCorpusReadModel.start(store, { dir, log });
  await expectCorpusOf(store, records);
  await model.stop();
}

async function headOf(store: EventStore): Promise<bigint> {
  let head = -1n;
  for await (const event of store.readAll()) head = event.position;
  return head;
}

describe('the bureau corpus across starts', () => {
  it('a start reads the saved corpus, then only the events after its checkpoint', async () => {
    const store = createMemoryEventStore();
    const records: JsonObject[] = [];
    await appendAudits(store, records, 7);
    const first = await bureauCorpusReadModel.start(store, { dir, log });
    await appendAudits(store, records, 5);
    await expectCorpusOf(store, records);
    await first.stop();
    const savedHead = await headOf(store);

    await appendAudits(store, records, 2);
    const seen: bigint[] = [];
    const restarted = watched(store, seen);
    const second = await bureauCorpusReadModel.start(restarted, { dir, log });
    await expectCorpusOf(restarted, records);
    await second.stop();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((position) => position > savedHead)).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('follows the log between requests, so a start after a long quiet run reads only its last events', async () => {
    const store = createMemoryEventStore();
    const records: JsonObject[] = [];
    const first = await bureauCorpusReadModel.start(store, { dir, log });
    await appendAudits(store, records, 20);
    // No corpus request meanwhile: the subscription folded the events as they came.
    await first.stop();
    const savedHead = await headOf(store);
    const seen: bigint[] = [];
    const restarted = watched(store, seen);
    const second = await bureauCorpusReadModel.start(restarted, { dir, log });
    await expectCorpusOf(restarted, records);
    await second.stop();
    expect(seen.filter((position) => position <= savedHead)).toEqual([]);
  });

  it('cuts lines past its checkpoint (written before a crash) and folds those audits again from the log', async () => {
    const store = createMemoryEventStore();
    const records: JsonObject[] = [];
    await appendAudits(store, records, 4);
    await runOnce(store, records);
    const entries = join(dir, 'bureau-corpus.entries');
    const savedBytes = statSync(entries).size;
    appendFileSync(entries, readFileSync(entries, 'utf8').split('\n')[0] + '\n["bureau-audit-torn","1",');
    await appendAudits(store, records, 1);
    await runOnce(store, records);
    expect(readFileSync(entries, 'utf8').split('\n').filter(Boolean)).toHaveLength(records.length);
    expect(statSync(entries).size).toBeGreaterThan(savedBytes);
  });

  it('folds the corpus from the log again when its file holds fewer audits than its checkpoint counts', async () => {
    const store = createMemoryEventStore();
    const records: JsonObject[] = [];
    await appendAudits(store, records, 6);
    await runOnce(store, records);
    const entries = join(dir, 'bureau-corpus.entries');
    writeFileSync(entries, readFileSync(entries, 'utf8').split('\n').slice(0, 3).join('\n') + '\n');
    await runOnce(store, records);
    expect(warnings.some((w) => w.includes('fewer audits than its checkpoint counts'))).toBe(true);
  });

  it('does not serve a saved corpus the log does not hold (another log under the same data directory)', async () => {
    const records: JsonObject[] = [];
    const old = createMemoryEventStore();
    await appendAudits(old, records, 5);
    await runOnce(old, records);

    const other = createMemoryEventStore();
    const otherRecords: JsonObject[] = [];
    await appendAudits(other, otherRecords, 2);
    await other.appendToStream('padding', Array.from({ length: 30 }, () => ({ id: randomUUID(), type: 'Other', data: {} })));
    await runOnce(other, otherRecords);
    expect(warnings.some((w) => w.includes('does not hold the last audit'))).toBe(true);
  });

  it('goes on without its files when they cannot be written or read: saves are logged, and the corpus is folded from the log', async () => {
    const store = createMemoryEventStore();
    const records: JsonObject[] = [];
    await appendAudits(store, records, 3);
    const first = await bureauCorpusReadModel.start(store, { dir, log });
    await expectCorpusOf(store, records);
    const entries = join(dir, 'bureau-corpus.entries');
    rmSync(entries, { force: true });
    mkdirSync(entries);
    await first.stop();
    expect(warnings.some((w) => w.includes('not saved'))).toBe(true);

    await appendAudits(store, records, 2);
    await runOnce(store, records);
    expect(warnings.some((w) => w.includes('cannot be read'))).toBe(true);
  });

  it('folds the corpus again from a log that ends before its checkpoint (a log restored from a backup)', async () => {
    const store = createMemoryEventStore();
    const records: JsonObject[] = [];
    await appendAudits(store, records, 5);
    const backup: RecordedEvent[] = [];
    for await (const event of store.readAll()) backup.push(event);
    await store.appendToStream('later', Array.from({ length: 10 }, () => ({ id: randomUUID(), type: 'Other', data: {} })));
    await runOnce(store, records);

    const restored = createMemoryEventStore();
    for (const event of backup) await restored.appendToStream(event.stream, [{ id: event.id, type: event.type, data: event.data }]);
    // The restored log's next audit takes a position the saved corpus had read past.
    await appendAudits(restored, records, 1);
    await runOnce(restored, records);
    expect(warnings.some((w) => w.includes('ends before the checkpoint'))).toBe(true);
  });

  it('stops following at an audit event it cannot read, and requests fail with the reason instead of leaving the audit out', async () => {
    const store = createMemoryEventStore();
    const records: JsonObject[] = [];
    await appendAudits(store, records, 2);
    const model = await bureauCorpusReadModel.start(store, { dir, log });
    await expectCorpusOf(store, records);
    await store.appendToStream(auditStreamName('broken'), [{ id: randomUUID(), type: GOVERNANCE_EVENT_TYPES.bureauAuditRecorded, data: { auditId: 'broken' } }]);
    await new Promise((resolve) => setTimeout(resolve, 700));
    await expect(corpusPage(store, keyring, 'http://test', 1, 5)).rejects.toThrow(/record/);
    await model.stop();
    expect(errors).toEqual(['bureau corpus: an audit event cannot be read; no longer following the log']);
    expect(warnings).toEqual([]);
  });
});
