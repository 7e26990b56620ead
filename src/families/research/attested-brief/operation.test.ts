import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson, tampers, verifyBody } from '../../../../test/support/http.ts';
import { BRIEF_EXAMPLE } from './operation.ts';

const service = useTestService();

describe('attested brief over HTTP', () => {
  it('quotes with 402 and refuses duplicate source ids with 422', async () => {
    expect((await postJson(`${service.url}/v1/research/attested-brief`, BRIEF_EXAMPLE)).status).toBe(402);
    const dup = await postJson(`${service.url}/v1/research/attested-brief`, { ...BRIEF_EXAMPLE, sources: [BRIEF_EXAMPLE.sources[0], BRIEF_EXAMPLE.sources[0]] });
    expect(dup).toMatchObject({ status: 422, body: { error: 'duplicate_source_id', issues: [{ path: 'sources.1.id' }] } });
  });

  it('refuses before the quote more sentences than it ranks (5,000 short lines took 90 s), and quotes a long article', async () => {
    const lines = (count: number) => 'Widget sold at two dollars.\n'.repeat(count);
    const [first, second] = [BRIEF_EXAMPLE.sources[0]!, BRIEF_EXAMPLE.sources[1]!];
    const tooMany = await postJson(`${service.url}/v1/research/attested-brief`, { ...BRIEF_EXAMPLE, sources: [{ ...first, text: lines(1_500) }, { ...second, text: lines(600) }] });
    expect(tooMany).toMatchObject({ status: 422, body: { error: 'too_many_sentences', issues: [{ path: 'sources', message: 'the sources hold more than 2000 sentences; at most 2000 are ranked (each is compared with every other)' }] } });
    expect((await postJson(`${service.url}/v1/research/attested-brief`, { ...BRIEF_EXAMPLE, sources: [{ ...first, text: lines(900) }, second] })).status).toBe(402);
  });

  it('is paid and re-checked on GET /v1/synthesis/verify; every tamper fails', async () => {
    const pay = createPayingFetch();
    const res = await pay(`${service.url}/v1/research/attested-brief`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BRIEF_EXAMPLE) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { evidenceCore: Record<string, JsonValue>; sha256: string; ed25519Sig: string };
    expect(body.evidenceCore['outcome']).toBe('BRIEF');
    expect((await verifyBody(service, 'GET', '/v1/synthesis/verify', body.evidenceCore, body.sha256, body.ed25519Sig)).valid).toBe(true);
    for (const t of tampers(body.evidenceCore, body.sha256, body.ed25519Sig)) expect((await verifyBody(service, 'GET', '/v1/synthesis/verify', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
  });
});
