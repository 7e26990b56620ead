import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { threatModel } from '../../src/families/security/threatmodel/operation.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { postTo, startTestService, type TestService } from '../support/service.ts';

// The in-memory store standing in for EventStoreDB, whose appends are limited (MaxAppendSize).
const APPEND_LIMIT = 256 * 1024;
let service: TestService;
beforeAll(async () => {
  service = await startTestService({}, () => createMemoryEventStore({ appendLimitBytes: APPEND_LIMIT }));
});
afterAll(async () => {
  await service.stop();
});

const example = threatModel.example as { manifest: { tools: unknown[] } };
const manifestOf = (tools: number) => ({ manifest: { tools: Array.from({ length: tools }, (_, i) => example.manifest.tools[i % example.manifest.tools.length]) } });

describe('a paid call whose signed result the event store could not hold', () => {
  it('is answered 413 result_too_large and charges nothing; a smaller request with a new payment is signed', async () => {
    const pay = createPayingFetch();
    const refused = await postTo(service, '/v1/security/threatmodel', manifestOf(400), pay);
    expect(refused.status).toBe(413);
    expect(refused.headers.get('payment-response')).toBeNull();
    const problem = (await refused.json()) as { error: string; message: string };
    expect(problem.error).toBe('result_too_large');
    expect(problem.message).toContain(`at most ${APPEND_LIMIT}`);
    expect(problem.message).toContain('nothing was charged');

    const signed = await postTo(service, '/v1/security/threatmodel', manifestOf(4), pay);
    expect(signed.status).toBe(200);
    expect(signed.headers.get('payment-response')).not.toBeNull();
  });
});
