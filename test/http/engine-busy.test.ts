import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pricedOperations } from '../../src/catalog/index.ts';
import { engineThreadsFor } from '../../src/kernel/engine-threads/pool.ts';
import { postTo, useTestService } from '../support/service.ts';

// Settings of their own, so this file holds a pool no other test shares; a job time limit longer
// than the hold below, so the held thread stays held for the whole file.
const threadSettings = { ENGINE_THREADS: 1, ENGINE_QUEUE: 0, ENGINE_HEAP_MB: 320, ENGINE_JOB_TIMEOUT_MS: 600_000 };
const service = useTestService({ ENGINE_THREADS: '1', ENGINE_QUEUE: '0', ENGINE_HEAP_MB: '320', ENGINE_JOB_TIMEOUT_MS: '600000' });
const testEngines = new URL('../../src/kernel/engine-threads/test-engines.test-support.ts', import.meta.url);

const threaded = pricedOperations().filter((op) => op.command?.runsOnEngineThread);

describe('every engine thread busy and the queue full', () => {
  let holding: Promise<unknown>;
  beforeAll(() => {
    // The one thread is held until the pool is closed below: the service's queue (0) is full.
    holding = engineThreadsFor(threadSettings).run(testEngines, 'busyFor', [120_000]).catch(() => undefined);
  });
  afterAll(async () => {
    await engineThreadsFor(threadSettings).close();
    await holding;
  });

  it('the operations whose engines run on the threads are the slow ones the documents name', () => {
    expect(threaded.map((op) => op.id).sort()).toEqual(['research.attested-brief', 'sec-extract', 'security.dependency-risk', 'utils.code-review-brief', 'utils.doc-convert', 'utils.pii-redact', 'utils.translate-doc']);
  });

  it.each(threaded.map((op) => [op.path, op] as const))('%s refuses before its quote: 503 engine_busy with Retry-After, nothing to pay', async (path, op) => {
    const answer = await postTo(service, path, op.example);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('2');
    expect(answer.headers.get('payment-required')).toBeNull();
    expect(await answer.json()).toMatchObject({ error: 'engine_busy' });
  });

  it('an input refusal still comes first: a bad input is told what is wrong, not to retry', async () => {
    const answer = await postTo(service, '/v1/utils/code-review-brief', { files: [{ path: 'a.js', content: 'x' }], diff: '+x' });
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({ error: 'one_source_required' });
  });

  it('an operation that does not use the threads is quoted as usual', async () => {
    const other = pricedOperations().find((op) => op.id === 'utils.schema-cleanup')!;
    const answer = await postTo(service, other.path, other.example);
    expect(answer.status).toBe(402);
  });
});
