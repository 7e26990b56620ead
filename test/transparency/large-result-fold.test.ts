import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findOperation } from '../../src/catalog/index.ts';
import { openFileEventStore, type HeadAwareEventStore } from '../../src/events/file-log/store.ts';
import type { RecordedEvent } from '../../src/events/port.ts';
import { dataMembers } from '../../src/events/unparsed-event-data.ts';
import { signedEvent, signedOf } from '../../src/payments/saga/claim.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/payments/saga/events.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import type { JsonObject } from '../../src/signing/rfc8785.ts';
import { seal } from '../../src/signing/seal.ts';
import { startResultLog } from '../../src/transparency/result-log.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {} } as never;
const keyring = createKeyring('large-result-fold-secret-0123456789abcdef');
const dependencyRisk = findOperation('security.dependency-risk')!;

/** About 11 MB, like dependency risk over 20,000 purls; its strings hold what a text reader could trip on. */
function largeRecord(): JsonObject {
  return {
    findings: Array.from({ length: 20_000 }, (_, i) => ({
      purl: `pkg:golang/golang.org/x/net@v0.0.${i}`,
      advisories: Array.from({ length: 8 }, (_, a) => ({ id: `GHSA-${i}-${a}`, summary: `a "quoted" {brace} \\ and ü, ${'x'.repeat(40)}`, score: 7.5 })),
    })),
    sha256: 'not the digest: a member of the record of the same name',
  };
}

/** The ResultSigned event the saga appends for `record`, its text assembled around the record's (as from an engine thread). */
function resultSignedFor(stream: string, record: JsonObject) {
  const sealed = seal(keyring, dependencyRisk.keyFamily!, record);
  const data = signedOf(dependencyRisk, { record, seal: sealed, body: {} }, 1_800_000_000);
  const event = signedEvent(stream, data, Buffer.from(JSON.stringify(record), 'utf8'));
  return { event, sealed, expectedData: JSON.parse(JSON.stringify(data)) as JsonObject };
}

/** Counts JSON.parse calls on texts of a megabyte or more: parsing the record itself. */
function countLargeParses(): { count: () => number; restore: () => void } {
  const parse = JSON.parse.bind(JSON);
  let large = 0;
  const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (text.length >= 1_000_000) large++;
    return parse(text, reviver);
  });
  return { count: () => large, restore: () => spy.mockRestore() };
}

describe('a ResultSigned event with a record of 11 MB in the file log', () => {
  let dir: string;
  let store: HeadAwareEventStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'large-result-'));
    store = await openFileEventStore({ dir: join(dir, 'log'), log: quiet });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('becomes a leaf of the result log, live and folded again at start, without the record being parsed', async () => {
    const { event, sealed } = resultSignedFor('payment-0xaa-0x01', largeRecord());
    const resultLog = await startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log: quiet });
    const parses = countLargeParses();
    const appended = await store.appendToStream('payment-0xaa-0x01', [event]);
    await expect(resultLog.caughtUpTo(appended.position, 10_000)).resolves.toBe(true);
    expect(parses.count()).toBe(0);
    expect(resultLog.leafIndexOf(sealed.sha256, appended.position)).toBe(0);
    expect(resultLog.inclusion(sealed.sha256, 1, 0)?.leaf).toEqual({ key_family: dependencyRisk.keyFamily, key_id: sealed.keyId, sha256: sealed.sha256 });
    await resultLog.stop();

    // A start without saved leaves folds the log from its beginning (the catch-up read).
    const again = await startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log: quiet });
    await expect(again.caughtUpTo(appended.position, 10_000)).resolves.toBe(true);
    expect(parses.count()).toBe(0);
    expect(again.leafIndexOf(sealed.sha256, appended.position)).toBe(0);
    await again.stop();
    parses.restore();
  });

  it('still gives its subscribers, live and after reopening, exactly the data appended', async () => {
    const { event, expectedData } = resultSignedFor('payment-0xaa-0x02', largeRecord());
    const delivered: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({ eventTypes: [PAYMENT_EVENT_TYPES.signed], onEvent: (e) => void delivered.push(e) });
    await store.appendToStream('payment-0xaa-0x02', [event], { expectedRevision: 'no_stream' });
    await vi.waitFor(() => expect(delivered).toHaveLength(1));
    await subscription.close();
    const live = delivered[0]!;
    expect(dataMembers(live, ['keyFamily', 'keyId', 'sha256', 'absent'])).toEqual({ keyFamily: expectedData['keyFamily'], keyId: expectedData['keyId'], sha256: expectedData['sha256'] });
    expect(live.data).toEqual(expectedData);
    expect(live.metadata).toEqual({});

    await store.close();
    store = await openFileEventStore({ dir: join(dir, 'log'), log: quiet });
    const [read] = await store.readStream('payment-0xaa-0x02');
    expect(read).toEqual({ ...live, recordedAt: read!.recordedAt });
    expect(JSON.stringify(read!.data)).toBe(JSON.stringify(expectedData));
    const all: RecordedEvent[] = [];
    for await (const e of store.readAll()) all.push(e);
    expect(all.map((e) => e.data)).toEqual([expectedData]);
  });
});
