import { describe, expect, it } from 'vitest';
import { useTestService } from '../../../../test/support/service.ts';
import { createKeyring } from '../../../signing/keyring.ts';
import { seal } from '../../../signing/seal.ts';
import { TEST_SECRET } from '../../../../test/support/service.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from './verify-client.ts';

const service = useTestService();
const keyring = createKeyring(TEST_SECRET);

function signedAnswer(content: string | Uint8Array): UtilityAnswer {
  const { record, beside } = utilityReceipt({ utility: 'utils.test', now: 1_767_225_600, input: 'in', output: { content, mediaType: 'text/plain' }, ruleset: { id: 't', version: '1' }, findings: { note: 'x' } });
  const s = seal(keyring, 'utils', record);
  return { ...(record as unknown as UtilityAnswer), sha256: s.sha256, ed25519Sig: s.ed25519Sig, output: beside!['output'] as string };
}

describe('GET /v1/utils/verify with the output beside the record', () => {
  it('accepts the record alone (as the spec names it) and with its output; a changed output byte fails', async () => {
    const answer = signedAnswer('héllo 🌍 world');
    expect(await verifyUtilityAnswer(service.url, answer, false)).toMatchObject({ valid: true, checks: { sha256: true, signature: true } });
    const withOutput = await verifyUtilityAnswer(service.url, answer);
    expect(withOutput).toMatchObject({ valid: true, checks: { sha256: true, signature: true, output_sha256: true } });
    const changed = await verifyUtilityAnswer(service.url, { ...answer, output: changeOneOutputByte(answer.output!, 'utf-8') });
    expect(changed).toMatchObject({ valid: false, checks: { sha256: true, signature: true, output_sha256: false } });
    expect(changed.reason).toContain('output_sha256');
  });

  it('decodes a base64 output before hashing, and refuses text that is not its canonical base64', async () => {
    const answer = signedAnswer(new Uint8Array([0, 1, 2, 250, 251, 252, 253]));
    expect(await verifyUtilityAnswer(service.url, answer)).toMatchObject({ valid: true, checks: { output_sha256: true } });
    expect(await verifyUtilityAnswer(service.url, { ...answer, output: changeOneOutputByte(answer.output!, 'base64') })).toMatchObject({ valid: false });
    expect(await verifyUtilityAnswer(service.url, { ...answer, output: `${answer.output}!!` })).toMatchObject({ valid: false, reason: expect.stringContaining('canonical base64') });
  });

  it('a genuine output beside a tampered record is still invalid', async () => {
    const answer = signedAnswer('abc');
    const res = await verifyUtilityAnswer(service.url, { ...answer, servedAt: answer.servedAt + 1 });
    expect(res).toMatchObject({ valid: false, checks: { sha256: false, output_sha256: true } });
  });
});
