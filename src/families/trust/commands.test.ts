import { describe, expect, it } from 'vitest';
import { findOperation } from '../../catalog/index.ts';
import type { PricedOperation } from '../../kernel/operation.ts';
import { runOperation } from '../../kernel/run-operation.ts';
import { catalogEntryStream } from './verify-catalog/events.ts';
import { createMemoryEventStore } from '../../events/memory-store.ts';
import type { JsonObject, JsonValue } from '../../signing/rfc8785.ts';
import { testCallContext } from '../../../test/support/call-context.ts';
import { startTestService } from '../../../test/support/service.ts';

const op = (id: string) => findOperation(id) as PricedOperation;

describe('trust commands', () => {
  it('verify-catalog register is safe to run again for the same payment: one event, the same signed record', async () => {
    const store = createMemoryEventStore();
    const first = testCallContext({ store });
    const input = op('verify-catalog.register').input.parse({ claim: { a: 1 }, source_url: 'https://example.org/x' });
    const a = await runOperation(op('verify-catalog.register'), input, first);
    // The resumed saga runs later: its clock moved, the stored registration still wins.
    const b = await runOperation(op('verify-catalog.register'), input, { ...first, now: first.now + 30 });
    expect(b.body).toEqual(a.body);
    const entryId = (a.record as JsonObject).entryId as string;
    expect((await store.readStream(catalogEntryStream(entryId))).length).toBe(1);
    // Another payment registering the same entry is a second registration in the same stream.
    const later = await runOperation(op('verify-catalog.register'), input, testCallContext({ store, now: first.now + 60 }));
    expect((await store.readStream(catalogEntryStream(entryId))).length).toBe(2);
    expect(later.record).not.toEqual(a.record);
    // The first call resumed once more, after the later registration: its own record, read back from the stream.
    expect((await runOperation(op('verify-catalog.register'), input, { ...first, now: first.now + 90 })).body).toEqual(a.body);
    expect((await store.readStream(catalogEntryStream(entryId))).length).toBe(2);
  });

  it('every trust operation is built, priced as the spec says, and its example input is valid', () => {
    const prices: Record<string, string> = {
      'veritrack.attest': '0.25',
      'receipts.mint': '0.25',
      'identity.control-proof': '0.20',
      'readiness.attest': '0.25',
      'agent-reputation.composite': '0.25',
      'agent-reputation.trusted-route': '0.30',
      'verify-catalog.register': '0.25',
    };
    for (const [id, price] of Object.entries(prices)) {
      const entry = op(id);
      expect(entry.command, id).toBeDefined();
      expect(entry.priceUsd).toBe(price);
      expect(entry.input.safeParse(entry.example).success, id).toBe(true);
    }
  });

  it('the largest reputation composite still fits its GET verify route', async () => {
    const service = await startTestService();
    try {
      const agent = 'a'.repeat(512);
      const events: JsonValue[] = Array.from({ length: 50 }, (_, i) => ({ event: { agent, outcome: 'success', at: i, counterparty: 'x'.repeat(300) }, signature: 'zz', signer: 'q'.repeat(500) }));
      const input = op('agent-reputation.composite').input.parse({ agent, events });
      const { record, seal } = await runOperation(op('agent-reputation.composite'), input, testCallContext());
      const query = new URLSearchParams({ evidence: JSON.stringify(record), signature: seal.ed25519Sig, sha256: seal.sha256 });
      const res = await fetch(`${service.url}/v1/agent-reputation/verify?${query}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ valid: true });
    } finally {
      await service.stop();
    }
  });
});
