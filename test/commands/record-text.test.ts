import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findOperation, pricedOperations } from '../../src/catalog/index.ts';
import { writeRecordPayload } from '../../src/events/file-log/framing.ts';
import { StagedBatch } from '../../src/events/file-log/staged-batch.ts';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import { openEventStore } from '../../src/events/open-store.ts';
import type { EventData, EventStore } from '../../src/events/port.ts';
import type { PricedOperation } from '../../src/kernel/operation.ts';
import { runOperation } from '../../src/kernel/run-operation.ts';
import { signedEvent, signedOf } from '../../src/payments/saga/claim.ts';
import { PAYMENT_EVENT_TYPES, resultSignedSchema } from '../../src/payments/saga/events.ts';
import { testCallContext } from '../support/call-context.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { postTo, startTestService } from '../support/service.ts';
import { silentLogger } from '../events/helpers.ts';

/**
 * A record made on an engine thread comes with its JSON text, and the event log and the HTTP
 * answer copy that text instead of serialising the record on the event loop. What is stored and
 * answered must be, byte for byte, what serialising the objects gave before.
 */
const threaded = pricedOperations().filter((op) => op.command?.runsOnEngineThread && op.id !== 'utils.doc-convert');

/** Large, and text that JSON escapes or encodes in several bytes: the cases a copied text could get wrong. */
const LARGE_INPUTS: Array<[string, unknown]> = [
  ['security.dependency-risk', { purls: Array.from({ length: 2_000 }, (_, i) => `pkg:golang/golang.org/x/net@v0.0.${i}`) }],
  ['utils.translate-doc', { text: 'Grüße aus Köln 🎉\t"zitiert" \\ und\u2028mehr.\n'.repeat(2_000), source_lang: 'de', target_lang: 'en' }],
];

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'record-text-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The frame the file log writes for `event`, at a fixed position and clock. */
function frameOf(stream: string, event: EventData, data: EventData['data'] | Uint8Array): Buffer {
  const batch = new StagedBatch(0);
  batch.beginRecord(event.id, event.type);
  writeRecordPayload(batch, 41, stream, 2, event.id, event.type, 1_767_225_600_123, data, undefined);
  batch.endRecord();
  return Buffer.from(batch.seal(false));
}

const cases = [...threaded.map((op) => [op.id, op, op.example] as const), ...LARGE_INPUTS.map(([id, input]) => [`${id}, large`, findOperation(id) as PricedOperation, input] as const)];

describe('a record made on an engine thread is stored and answered from the JSON text the thread made', () => {
  it.each(cases)('%s: the answer and the ResultSigned event are the bytes JSON.stringify gives of their objects', async (_name, op, raw) => {
    const ctx = testCallContext();
    const result = await runOperation(op, op.input.parse(raw), ctx);
    expect(result.recordJson).toBeDefined();
    expect(Buffer.from(result.recordJson!).equals(Buffer.from(JSON.stringify(result.record)))).toBe(true);
    // What Koa wrote of the body object before.
    expect(Buffer.from(result.bodyJson!).equals(Buffer.from(JSON.stringify(result.body)))).toBe(true);

    const stream = 'payment-0x00000000000000000000000000000000000000aa-0x01';
    const event = signedEvent(stream, signedOf(op, result, ctx.now), result.recordJson);
    expect(Buffer.from(event.dataJson!).equals(Buffer.from(JSON.stringify(event.data)))).toBe(true);
    // The file log's frame from the text is the frame it wrote from the object, header and checksum included.
    expect(frameOf(stream, event, event.dataJson!).equals(frameOf(stream, event, event.data))).toBe(true);
    // A stream name written the exact way (not plain ASCII) too.
    expect(frameOf(`${stream}-ü`, event, event.dataJson!).equals(frameOf(`${stream}-ü`, event, event.data))).toBe(true);
  }, 60_000);

  it('the event appended from its text reads back equal to its data, from the live log and after a restart', async () => {
    const [id, raw] = LARGE_INPUTS[1]!;
    const op = findOperation(id) as PricedOperation;
    const ctx = testCallContext();
    const result = await runOperation(op, op.input.parse(raw), ctx);
    const stream = 'payment-0x00000000000000000000000000000000000000bb-0x02';
    const event = signedEvent(stream, signedOf(op, result, ctx.now), result.recordJson);
    expect(event.dataJson).toBeDefined();
    const dir = tempDir();
    const readBack = async (store: EventStore) => (await store.readStream(stream))[0]?.data;

    let store = await openFileEventStore({ dir, log: silentLogger });
    await store.appendToStream(stream, [event], { expectedRevision: 'no_stream' });
    expect(await readBack(store)).toEqual(event.data);
    await store.close();
    store = await openFileEventStore({ dir, log: silentLogger });
    const stored = await readBack(store);
    await store.close();
    expect(stored).toEqual(event.data);
    expect(resultSignedSchema.parse(stored).sha256).toBe(result.seal.sha256);
  }, 60_000);

  it('over HTTP, on the file log: the answer is JSON.stringify of what it parses to, as Koa wrote it, and the stored record is the answered one', async () => {
    const service = await startTestService({}, (settings) => openEventStore(settings, silentLogger));
    try {
      const [id, raw] = LARGE_INPUTS[0]!;
      const op = findOperation(id) as PricedOperation;
      const res = await postTo(service, op.path, raw, createPayingFetch());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = Buffer.from(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).toBe(text.length);
      const answer = JSON.parse(text.toString('utf8')) as { evidenceCore: unknown; sha256: string };
      expect(text.equals(Buffer.from(JSON.stringify(answer)))).toBe(true);
      const signed: unknown[] = [];
      for await (const event of service.deps.store.readAll()) if (event.type === PAYMENT_EVENT_TYPES.signed) signed.push(event.data);
      expect(signed).toHaveLength(1);
      const stored = resultSignedSchema.parse(signed[0]);
      expect(stored.sha256).toBe(answer.sha256);
      expect(stored.record).toEqual(answer.evidenceCore);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
