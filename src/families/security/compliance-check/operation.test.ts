import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson } from '../../../../test/support/http.ts';
import { CV_SCREENING_EXAMPLE } from './operation.ts';

const service = useTestService();
type Snapshot = { kind: string; assessedAt: number; asset: string; assessment: Record<string, JsonValue> & { risk_class: string; ruleset: { data: Array<{ sha256: string }> } } };
type Answer = Snapshot & { sha256: string; ed25519Sig: string };

const verifyUrl = (s: Snapshot, sig: { sha256: string; ed25519Sig: string }) =>
  `${service.url}/v1/compliance/verify?${new URLSearchParams({ kind: s.kind, assessed_at: String(s.assessedAt), asset: s.asset, assessment: JSON.stringify(s.assessment), sha256: sig.sha256, signature: sig.ed25519Sig })}`;

describe('compliance check over HTTP', () => {
  it('quotes with 402, and refuses an answer that is not yes, no or unknown, or a question that does not exist, with 422', async () => {
    expect((await postJson(`${service.url}/v1/compliance/check`, CV_SCREENING_EXAMPLE)).status).toBe(402);
    const badAnswer = await postJson(`${service.url}/v1/compliance/check`, { asset: 'x', use_case: { description: '', answers: { art5_1_a: 'maybe' } } });
    expect(badAnswer.status).toBe(422);
    const unknownQuestion = await postJson(`${service.url}/v1/compliance/check`, { asset: 'x', use_case: { description: '', answers: { art99: 'yes' } } });
    expect(unknownQuestion.status).toBe(422);
  });

  it('serves the questionnaire whose SHA-256 the paid snapshot names, and the snapshot re-checks on the verify route', async () => {
    const questionnaire = Buffer.from(await (await fetch(`${service.url}/v1/compliance/questionnaire`)).arrayBuffer());
    const pay = createPayingFetch();
    const response = await pay(`${service.url}/v1/compliance/check`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CV_SCREENING_EXAMPLE) });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Answer;
    expect(answer.assessment.risk_class).toBe('HIGH-RISK');
    expect(answer.assessment.ruleset.data[0]!.sha256).toBe(createHash('sha256').update(questionnaire).digest('hex'));

    const { publicKey } = (await (await fetch(`${service.url}/v1/compliance/public-key`)).json()) as { publicKey: string };
    const { sha256, ed25519Sig, keyId: _keyId, publicKeyUrl: _url, verifyUrl: _verify, ...record } = answer as Answer & { keyId?: string; publicKeyUrl?: string; verifyUrl?: string };
    expect(checkSignedRecord(record, sha256, ed25519Sig, publicKey).valid).toBe(true);
    expect(checkSignedRecord({ ...record, asset: 'another system' }, sha256, ed25519Sig, publicKey).valid).toBe(false);

    const check = async (s: Snapshot) => ((await (await fetch(verifyUrl(s, answer))).json()) as { valid: boolean }).valid;
    expect(await check(answer)).toBe(true);
    expect(await check({ ...answer, assessment: { ...answer.assessment, risk_class: 'MINIMAL-RISK' } })).toBe(false);
    expect(await check({ ...answer, asset: 'another system' })).toBe(false);
  });
});
