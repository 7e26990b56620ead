/**
 * How a client re-checks a utility answer on GET /v1/utils/verify: the record's members as the
 * spec names the parameters, the seal, and the output answered beside the record. Used by the
 * utilities' tests; the same few lines work in any client.
 */
export interface UtilityAnswer {
  kind: string;
  utility: string;
  servedAt: number;
  utility_result: unknown;
  sha256: string;
  ed25519Sig: string;
  output?: string;
}

export interface VerifyAnswer {
  valid: boolean;
  checks: { sha256: boolean; signature: boolean; output_sha256?: boolean };
  reason?: string;
}

export function utilsVerifyQuery(answer: UtilityAnswer, withOutput = true): URLSearchParams {
  const query = new URLSearchParams({
    kind: answer.kind,
    utility: answer.utility,
    served_at: String(answer.servedAt),
    result: JSON.stringify(answer.utility_result),
    sha256: answer.sha256,
    signature: answer.ed25519Sig,
  });
  if (withOutput && answer.output !== undefined) query.set('output', answer.output);
  return query;
}

export async function verifyUtilityAnswer(baseUrl: string, answer: UtilityAnswer, withOutput = true): Promise<VerifyAnswer> {
  const res = await fetch(`${baseUrl}/v1/utils/verify?${utilsVerifyQuery(answer, withOutput)}`);
  return (await res.json()) as VerifyAnswer;
}

/** The output with one byte changed: the verify route must refuse it. */
export function changeOneOutputByte(output: string, encoding: 'utf-8' | 'base64'): string {
  if (encoding === 'base64') {
    const bytes = Buffer.from(output, 'base64');
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    return bytes.toString('base64');
  }
  const bytes = Buffer.from(output, 'utf8');
  const i = bytes.findIndex((b) => b >= 0x30 && b <= 0x7a);
  bytes[i] = bytes[i] === 0x30 ? 0x31 : 0x30;
  return bytes.toString('utf8');
}
