import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import { utilityRecord } from '../../../kernel/route-kit/records.ts';
import { canonicalBytes, type JsonValue } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postTo, useTestService } from '../../../../test/support/service.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from './verify-client.ts';

/** The documents utilities of this folder's receipts, paid over real HTTP with the official x402 client. */

const service = useTestService();
const payer = createPayingFetch();

const UTILITIES = ['utils.invoice-extract', 'utils.pii-redact', 'utils.schema-cleanup', 'utils.translate-doc', 'sec-extract', 'utils.doc-convert', 'utils.code-review-brief'];

/** Offline: the utils public key, the record rebuilt from the answer, and the output's digest. */
async function verifiesOffline(answer: UtilityAnswer): Promise<boolean> {
  const { publicKey } = (await (await fetch(`${service.url}/v1/utils/public-key`)).json()) as { publicKey: string };
  const record = utilityRecord({ kind: answer.kind, utility: answer.utility, servedAt: answer.servedAt, utility_result: answer.utility_result as JsonValue });
  const bytes = canonicalBytes(record);
  const result = answer.utility_result as { output_sha256: string; output_encoding: string };
  const output = result.output_encoding === 'base64' ? Buffer.from(answer.output!, 'base64') : Buffer.from(answer.output!, 'utf8');
  return (
    sha256Hex(bytes) === answer.sha256 &&
    ed25519.verify(Buffer.from(answer.ed25519Sig, 'hex'), bytes, Buffer.from(publicKey, 'hex')) &&
    createHash('sha256').update(output).digest('hex') === result.output_sha256
  );
}

describe('the documents utilities, paid over HTTP', () => {
  for (const id of UTILITIES) {
    it(`${id}: paid with its example, re-checked on GET /v1/utils/verify and offline with its output; a changed output byte fails both`, async () => {
      const op = findOperation(id)!;
      const res = await postTo(service, op.path, op.example, payer);
      const answer = (await res.json()) as UtilityAnswer & { verifyUrl: string };
      expect(res.status, JSON.stringify(answer)).toBe(200);
      expect(res.headers.get('payment-response')).toBeTruthy();
      expect(answer).toMatchObject({ kind: 'utility-receipt', utility: id, verifyUrl: `${service.deps.baseUrl}/v1/utils/verify` });
      expect(typeof answer.output).toBe('string');
      expect(await verifyUtilityAnswer(service.url, answer)).toMatchObject({ valid: true, checks: { sha256: true, signature: true, output_sha256: true } });
      expect(await verifiesOffline(answer)).toBe(true);
      const encoding = (answer.utility_result as { output_encoding: 'utf-8' | 'base64' }).output_encoding;
      const changed = { ...answer, output: changeOneOutputByte(answer.output!, encoding) };
      expect((await verifyUtilityAnswer(service.url, changed)).valid).toBe(false);
      expect(await verifiesOffline(changed)).toBe(false);
    });
  }
});
