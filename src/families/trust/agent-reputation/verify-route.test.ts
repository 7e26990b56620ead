import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import type { PricedOperation } from '../../../kernel/operation.ts';
import { runOperation } from '../../../kernel/run-operation.ts';
import { MAX_HEADER_BYTES } from '../../../kernel/limits.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { testCallContext } from '../../../../test/support/call-context.ts';
import { postTo, startTestService, type TestService } from '../../../../test/support/service.ts';

/** A composite as a paid call signs it, then re-checked on the free verify routes of the real service. */
const op = findOperation('agent-reputation.composite') as PricedOperation;

async function composite(agent: string, events: JsonValue[]) {
  const { record, seal } = await runOperation(op, op.input.parse({ agent, events }), testCallContext());
  return { record: record as JsonObject, signature: seal.ed25519Sig, sha256: seal.sha256 };
}

describe('agent-reputation verify routes', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('a composite whose reason quotes emoji verifies on GET (no half surrogate pair in the signed text)', async () => {
    const events: JsonValue[] = [{ event: { agent: `a${'😀'.repeat(100)}`, outcome: 'success', at: 1 }, signature: 'x', signer: 'y' }];
    const { record, signature, sha256 } = await composite('did:web:a', events);
    const res = await fetch(`${service.url}/v1/agent-reputation/verify?${new URLSearchParams({ evidence: JSON.stringify(record), signature, sha256 })}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ valid: true });
  });

  it('the largest composites, too long for a GET URL, verify on POST with the composite in the JSON body', async () => {
    const events: JsonValue[] = Array.from({ length: 50 }, (_, i) => ({ event: { agent: `${'界'.repeat(300)}x`, outcome: 'success', at: i }, signature: 'x', signer: 'y' }));
    const { record, signature, sha256 } = await composite('界'.repeat(512), events);
    const query = new URLSearchParams({ evidence: JSON.stringify(record), signature, sha256 });
    expect(query.toString().length).toBeGreaterThan(MAX_HEADER_BYTES);

    const post = await postTo(service, '/v1/agent-reputation/verify', { evidence: JSON.stringify(record), signature, sha256 });
    expect(post.status).toBe(200);
    expect(await post.json()).toMatchObject({ valid: true, family: 'agent-reputation' });

    const tampered = await postTo(service, '/v1/agent-reputation/verify', { evidence: JSON.stringify({ ...record, events_supplied: 49 }), signature, sha256 });
    expect(await tampered.json()).toMatchObject({ valid: false });
  });
});
