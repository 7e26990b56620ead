import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { verifyBody } from '../../../../test/support/http.ts';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';

const service = useTestService();

describe('signed research over HTTP', () => {
  it('quotes GET /v1/signed-research with 402, and refuses a topic longer than 200 characters with 422', async () => {
    expect((await fetch(`${service.url}/v1/signed-research?topic=momentum`)).status).toBe(402);
    expect((await fetch(`${service.url}/v1/signed-research?topic=${'x'.repeat(201)}`)).status).toBe(422);
  });

  it('is paid, defaults to the whole library, and re-checks on GET /v1/synthesis/verify; a changed point fails', async () => {
    const pay = createPayingFetch();
    const res = await pay(`${service.url}/v1/signed-research`);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { evidenceCore: Record<string, JsonValue> & { topic: string; outcome: string; points: Array<Record<string, JsonValue>> }; sha256: string; ed25519Sig: string };
    expect(answer.evidenceCore).toMatchObject({ topic: 'quant research', outcome: 'RESEARCH' });
    expect(answer.evidenceCore.points.length).toBeGreaterThan(0);
    for (const point of answer.evidenceCore.points) expect(point['citation']).toMatch(/\(\d{4}\)\./);
    const { publicKey } = (await (await fetch(`${service.url}/v1/synthesis/public-key`)).json()) as { publicKey: string };
    expect(checkSignedRecord(answer.evidenceCore, answer.sha256, answer.ed25519Sig, publicKey).valid).toBe(true);
    expect((await verifyBody(service, 'GET', '/v1/synthesis/verify', answer.evidenceCore, answer.sha256, answer.ed25519Sig)).valid).toBe(true);
    const changed = { ...answer.evidenceCore, points: [{ ...answer.evidenceCore.points[0]!, quote: 'Momentum always wins.' }, ...answer.evidenceCore.points.slice(1)] };
    expect((await verifyBody(service, 'GET', '/v1/synthesis/verify', changed, answer.sha256, answer.ed25519Sig)).valid).toBe(false);
  });
});
