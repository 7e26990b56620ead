import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';
import { createKeyring } from '../../../signing/keyring.ts';
import { seal } from '../../../signing/seal.ts';
import { TEST_SECRET, useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson, runAgainst } from '../../../../test/support/http.ts';
import { CV_SCREENING_EXAMPLE } from './operation.ts';

const service = useTestService();
type Snapshot = { kind: string; assessedAt: number; asset: string; assessment: Record<string, JsonValue> & { risk_class: string; ruleset: { data: Array<{ sha256: string }> } } };
type Answer = Snapshot & { sha256: string; ed25519Sig: string };

/** What the verify route rebuilds a snapshot from. */
const signedSnapshot = z.object({ kind: z.string(), assessedAt: z.number().int(), asset: z.string(), assessment: z.record(z.string(), z.unknown()) });
type SignedSnapshot = z.infer<typeof signedSnapshot>;

const verifyParams = (s: SignedSnapshot, sig: { sha256: string; ed25519Sig: string }) => ({ kind: s.kind, assessed_at: String(s.assessedAt), asset: s.asset, assessment: JSON.stringify(s.assessment), sha256: sig.sha256, signature: sig.ed25519Sig });
const verifyUrl = (s: SignedSnapshot, sig: { sha256: string; ed25519Sig: string }) => `${service.url}/v1/compliance/verify?${new URLSearchParams(verifyParams(s, sig))}`;
/** Whether the verify route accepts a snapshot, asked on GET and on POST. */
const rechecks = async (s: SignedSnapshot, sig: { sha256: string; ed25519Sig: string }) => {
  const onGet = ((await (await fetch(verifyUrl(s, sig))).json()) as { valid: boolean }).valid;
  const onPost = ((await postJson(`${service.url}/v1/compliance/verify`, verifyParams(s, sig))).body as { valid: boolean }).valid;
  return [onGet, onPost];
};
/** 2026-12-02T00:00:00Z, the day the Digital Omnibus prohibition applies from. */
const OMNIBUS_PROHIBITION_FROM = 1_796_169_600;
/** The questionnaire the records of rule set 3 name (version 2026-11-27.1). */
const QUESTIONNAIRE_OF_RULESET_3 = { name: 'eu-ai-act-questionnaire', version: '2026-11-27.1', sha256: 'e6ae5b66f7b89d02c7bd1b83ca87ae8a7728c88a520b5966b26af3ccc2be0773', data_date: '2026-11-24' };

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

  it('signs a nudification app PROHIBITED under the Digital Omnibus point, saying before 2026-12-02 that it is not yet in force, and the snapshot re-checks', async () => {
    const nudifier = { asset: 'undress-app 1.2', use_case: { description: 'Removes clothes from uploaded photos of people.', answers: { art5_1_omnibus_intimate_content_csam: 'yes' } } };
    const omnibusObligation = { article: expect.stringContaining('Digital Omnibus on AI'), role: 'all', applies_from: expect.objectContaining({ digital_omnibus_on_ai: '2026-12-02' }) };
    for (const [now, obligation] of [
      [OMNIBUS_PROHIBITION_FROM - 1, { ...omnibusObligation, status: 'prohibited from 2026-12-02, not yet in force at the time of the check' }],
      [OMNIBUS_PROHIBITION_FROM, omnibusObligation],
    ] as const) {
      const { record, seal: sealed } = await runAgainst(service, 'compliance.check', nudifier, { now });
      const snapshot = signedSnapshot.parse(record);
      expect(snapshot.assessment).toMatchObject({ risk_class: 'PROHIBITED', ruleset: { version: '4' }, matched: [{ question: 'art5_1_omnibus_intimate_content_csam' }] });
      expect(snapshot.assessment['obligations']).toEqual([{ ...obligation, title: expect.any(String) }]);
      expect(await rechecks(snapshot, sealed)).toEqual([true, true]);
    }
  });

  it('a snapshot signed under rule set 3 and questionnaire 2026-11-27.1 still re-checks beside those of rule set 4', async () => {
    const current = signedSnapshot.parse((await runAgainst(service, 'compliance.check', CV_SCREENING_EXAMPLE)).record);
    const ruleset = z.record(z.string(), z.unknown()).parse(current.assessment['ruleset']);
    expect(ruleset).toMatchObject({ version: '4', data: [{ version: '2026-11-28' }] });
    const earlier: SignedSnapshot = {
      ...current,
      assessment: {
        ...current.assessment,
        ruleset: { ...ruleset, version: '3', data: [QUESTIONNAIRE_OF_RULESET_3] },
        limitations: ['the Digital Omnibus prohibition of non-consensual intimate content is not yet a question'],
      },
    };
    const sealed = seal(createKeyring(TEST_SECRET), 'compliance', earlier);
    expect(await rechecks(earlier, sealed)).toEqual([true, true]);
    expect(await rechecks({ ...earlier, assessment: { ...earlier.assessment, risk_class: 'PROHIBITED' } }, sealed)).toEqual([false, false]);
  });
});
