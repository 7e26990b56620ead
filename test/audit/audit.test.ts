import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditEventLog } from '../../src/audit/audit.ts';
import { formatReport } from '../../src/audit/report.ts';
import { hashLinkedChainRule, type ChainRule } from '../../src/kernel/audit-rule.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import type { EventStore, RecordedEvent } from '../../src/events/port.ts';
import { canonicalBytes, type JsonObject } from '../../src/signing/rfc8785.ts';
import { canonicalSha256 } from '../../src/signing/hash.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { appendSaga, authorized, newPaymentStream, SECRET, settled, signed } from './fixtures.ts';

const keyring = createKeyring(SECRET);

async function audit(store: EventStore, chainRules: readonly ChainRule[] = []) {
  return auditEventLog({ store, keyring, chainRules });
}

describe('audit: signed results', () => {
  it('passes a log of complete and interrupted sagas, counting what it checked', async () => {
    const store = createMemoryEventStore();
    for (let i = 0; i < 5; i++) await appendSaga(store, keyring, { input: `text ${i}`, digest: 'x'.repeat(i) });
    await store.appendToStream(newPaymentStream(), [authorized()]); // Never settled: resumed on retry, not a failure.
    const report = await audit(store);
    expect(report).toMatchObject({ ok: true, events: 16, results: 5, streams: 6, failureCount: 0, failures: [] });
    expect(report.unfinishedPayments).toEqual({ notSettled: 1, notSigned: 0, notSignedStreams: [] });
  });

  it('names the payments settled with no signed result: charged, with nothing to show yet', async () => {
    const store = createMemoryEventStore();
    await appendSaga(store, keyring, { input: 'done' });
    const charged = [newPaymentStream(), newPaymentStream()];
    for (const stream of charged) await store.appendToStream(stream, [authorized(), settled()]);
    await store.appendToStream(newPaymentStream(), [authorized()]);
    const report = await audit(store);
    expect(report.ok).toBe(true);
    expect(report.unfinishedPayments).toEqual({ notSettled: 1, notSigned: 2, notSignedStreams: [...charged].sort() });
    const printed = formatReport(report, { source: 'test', seconds: 1 });
    expect(printed).toMatch(/unfinished payments: 2 settled with no signed result .*, 1 claimed and not settled/);
    for (const stream of charged) expect(printed).toContain(`settled, no result: ${stream}`);
  });

  it('finds a record changed after signing (hash and signature both fail)', async () => {
    const store = createMemoryEventStore();
    await appendSaga(store, keyring, { input: 'a' });
    const stream = await appendSaga(store, keyring, { input: 'b', amount: 5 }, (data) => {
      (data.record as JsonObject).amount = 6;
    });
    const report = await audit(store);
    expect(report.ok).toBe(false);
    expect(report.failuresByKind).toEqual({ 'result-sha256': 1, 'result-signature': 1 });
    expect(report.failures[0]).toMatchObject({ stream, revision: 2n });
  });

  it('finds a forged digest, a signature by another key, a wrong keyId, an unknown family and a malformed event', async () => {
    const store = createMemoryEventStore();
    const otherKeyring = createKeyring('another-secret-0123456789abcdef0123456789');
    await appendSaga(store, keyring, { n: 1 }, (d) => (d.sha256 = canonicalSha256({ n: 2 })));
    await appendSaga(store, keyring, { n: 2 }, (d) => (d.ed25519Sig = otherKeyring.sign('utils', canonicalBytes({ n: 2 }))));
    await appendSaga(store, keyring, { n: 3 }, (d) => (d.keyId = keyring.publicKey('memory').keyId));
    await appendSaga(store, keyring, { n: 4 }, (d) => (d.keyFamily = 'no-such-family'));
    await appendSaga(store, keyring, { n: 5 }, (d) => delete d.ed25519Sig);
    const report = await audit(store);
    expect(report.failuresByKind).toEqual({
      'result-sha256': 1,
      'result-signature': 1,
      'result-key-id': 1,
      'result-key-family': 1,
      'result-schema': 1,
    });
    expect(report.failureCount).toBe(5);
  });
});

describe('audit: saga order', () => {
  it('flags settlement before authorization, a result before settlement, and repeated steps', async () => {
    const store = createMemoryEventStore();
    const settledFirst = newPaymentStream();
    await store.appendToStream(settledFirst, [settled(), authorized()]);
    const signedEarly = newPaymentStream();
    await store.appendToStream(signedEarly, [authorized(), signed(keyring, { ok: true })]);
    const twice = newPaymentStream();
    await store.appendToStream(twice, [authorized(), settled(), settled()]);
    const report = await audit(store);
    const sagaFailures = report.failures.filter((f) => f.kind === 'saga-order');
    expect(sagaFailures.map((f) => [f.stream, f.revision])).toEqual([
      [settledFirst, 0n],
      [settledFirst, 1n],
      [signedEarly, 1n],
      [twice, 2n],
    ]);
    expect(sagaFailures[2]!.message).toMatch(/ResultSigned before any PaymentSettled/);
  });

  it('ignores streams that are not payment streams', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('memory-agent-1', [settled(), settled()]);
    expect((await audit(store)).ok).toBe(true);
  });
});

describe("audit: the log's own order", () => {
  type Head = Pick<RecordedEvent, 'stream' | 'revision' | 'position' | 'type'>;
  const [a, b] = [newPaymentStream(), newPaymentStream()];

  /** The audit of a log that reads back as `events` (what a log edited on disk could give), and its failures' kind, stream and message. */
  async function auditReading(events: Head[]) {
    const read = async function* (): AsyncGenerator<RecordedEvent> {
      for (const event of events) yield { id: randomUUID(), data: {}, metadata: {}, recordedAt: 0, ...event };
    };
    const report = await audit({ ...createMemoryEventStore(), readAll: read });
    return { report, failures: report.failures.map((f) => [f.kind, f.stream, f.message]) };
  }

  it("finds a revision skipped or repeated in a stream and a position that goes back, each stream's revisions kept apart", async () => {
    const { report, failures } = await auditReading([
      { stream: a, revision: 0n, position: 0n, type: 'Noted' },
      { stream: b, revision: 0n, position: 1n, type: 'Noted' },
      { stream: a, revision: 2n, position: 2n, type: 'Noted' },
      { stream: b, revision: 1n, position: 3n, type: 'Noted' },
      { stream: b, revision: 1n, position: 4n, type: 'Noted' },
      { stream: 'other', revision: 0n, position: 4n, type: 'Noted' },
    ]);
    expect(report.streams).toBe(3);
    expect(failures).toEqual([
      ['log-order', a, 'revision 2, expected 1'],
      ['log-order', b, 'revision 1, expected 2'],
      ['log-order', 'other', 'position 4 after 4'],
    ]);
  });

  it('checks the saga of each payment stream apart from the others', async () => {
    const { failures } = await auditReading([
      { stream: a, revision: 0n, position: 0n, type: 'PaymentAuthorized' },
      { stream: b, revision: 0n, position: 1n, type: 'PaymentSettled' },
      { stream: a, revision: 1n, position: 2n, type: 'PaymentSettled' },
    ]);
    expect(failures).toEqual([['saga-order', b, 'PaymentSettled before any PaymentAuthorized']]);
  });
});

describe('audit: hash-chain registry', () => {
  type Link = { value: string; prevStateHash: string | null; stateHash: string };
  const linkHash = (prev: string | null, value: string) => canonicalSha256({ prevStateHash: prev, value });
  const memoryChain = hashLinkedChainRule({
    name: 'memory',
    streamPrefix: 'memory-',
    eventTypes: ['MemoryPut'],
    recompute: (e) => {
      const d = e.data as Link;
      return linkHash(d.prevStateHash, d.value);
    },
  });

  function chain(values: string[]): Link[] {
    const links: Link[] = [];
    let prev: string | null = null;
    for (const value of values) {
      const stateHash = linkHash(prev, value);
      links.push({ value, prevStateHash: prev, stateHash });
      prev = stateHash;
    }
    return links;
  }

  async function appendChain(store: EventStore, stream: string, links: Link[]): Promise<void> {
    await store.appendToStream(stream, links.map((l) => ({ id: randomUUID(), type: 'MemoryPut', data: l })));
  }

  it('passes intact chains and checks each stream a rule applies to', async () => {
    const store = createMemoryEventStore();
    await appendChain(store, 'memory-a', chain(['one', 'two', 'three']));
    await appendChain(store, 'memory-b', chain(['x']));
    await store.appendToStream('memory-a', [{ id: randomUUID(), type: 'MemoryRead', data: {} }]); // Not a link.
    const report = await audit(store, [memoryChain]);
    expect(report).toMatchObject({ ok: true, chains: 2 });
  });

  it('finds a broken link and a hash that does not match its content', async () => {
    const store = createMemoryEventStore();
    const links = chain(['one', 'two', 'three', 'four']);
    links[2] = { ...links[2]!, prevStateHash: links[0]!.stateHash }; // Skips a version.
    await appendChain(store, 'memory-a', links);
    const edited = chain(['p', 'q']);
    edited[1] = { ...edited[1]!, value: 'q-edited' };
    await appendChain(store, 'memory-b', edited);
    const report = await audit(store, [memoryChain]);
    expect(report.failuresByKind).toEqual({ 'chain:memory': 3 });
    expect(report.failures.map((f) => [f.stream, f.revision])).toEqual([
      ['memory-a', 2n], // prevStateHash points at the wrong version...
      ['memory-a', 2n], // ...so its stateHash no longer matches its content either.
      ['memory-b', 1n],
    ]);
  });

  it('reports a rule that throws as a failure of that rule', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('ledger-1', [{ id: randomUUID(), type: 'Entry', data: {} }]);
    const throwing: ChainRule = { name: 'ledger', appliesTo: (s) => s.startsWith('ledger-'), check: () => { throw new Error('bad rule'); } };
    const report = await audit(store, [throwing]);
    expect(report.failures).toMatchObject([{ kind: 'chain:ledger', stream: 'ledger-1', message: 'the rule threw: bad rule' }]);
  });
});
