import { expect } from 'vitest';
import { findOperation } from '../../src/catalog/index.ts';
import type { JsonObject } from '../../src/signing/rfc8785.ts';
import { createPayingFetch } from './paying-client.ts';
import type { TestService } from './service.ts';

export interface PaidUtility {
  record: JsonObject & { utility_result: JsonObject };
  sha256: string;
  signature: string;
  output: string;
}

const pay = createPayingFetch();

/** Pays for a utility over HTTP with the official x402 client and returns its receipt and output. */
export async function payUtility(service: TestService, operationId: string, input: unknown): Promise<PaidUtility> {
  const op = findOperation(operationId)!;
  const res = await pay(`${service.url}${op.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
  expect(res.status, await res.clone().text()).toBe(200);
  const body = (await res.json()) as { kind: string; utility: string; servedAt: number; utility_result: JsonObject; sha256: string; ed25519Sig: string; output: string };
  const { kind, utility, servedAt, utility_result } = body;
  return { record: { kind, utility, servedAt, utility_result }, sha256: body.sha256, signature: body.ed25519Sig, output: body.output };
}

/** GET /v1/utils/verify, with the output when given (POST form for large outputs). */
export async function verifyUtility(service: TestService, paid: PaidUtility, output?: string): Promise<{ valid: boolean; reason?: string }> {
  const params = { kind: String(paid.record.kind), utility: String(paid.record['utility']), served_at: String(paid.record['servedAt']), result: JSON.stringify(paid.record.utility_result), sha256: paid.sha256, signature: paid.signature, ...(output === undefined ? {} : { output }) };
  const query = new URLSearchParams(params).toString();
  const res = query.length < 30_000
    ? await fetch(`${service.url}/v1/utils/verify?${query}`)
    : await fetch(`${service.url}/v1/utils/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
  return (await res.json()) as { valid: boolean; reason?: string };
}

/** The checks every utility passes: valid with its output, invalid with a changed output byte or record. */
export async function expectReceiptHolds(service: TestService, paid: PaidUtility): Promise<void> {
  expect(await verifyUtility(service, paid)).toMatchObject({ valid: true });
  expect(await verifyUtility(service, paid, paid.output)).toMatchObject({ valid: true });
  const encoding = paid.record.utility_result['output_encoding'];
  const bytes = encoding === 'base64' ? Buffer.from(paid.output, 'base64') : Buffer.from(paid.output, 'utf8');
  const middle = Math.floor(bytes.length / 2);
  bytes[middle] = bytes[middle]! ^ 0x01;
  const changed = encoding === 'base64' ? bytes.toString('base64') : bytes.toString('latin1') === paid.output ? `${paid.output}x` : bytes.toString('utf8');
  expect(await verifyUtility(service, paid, changed)).toMatchObject({ valid: false, reason: expect.stringMatching(/the output was changed/) });
  const tampered = { ...paid, record: { ...paid.record, utility_result: { ...paid.record.utility_result, output_bytes: Number(paid.record.utility_result['output_bytes']) + 1 } } };
  expect((await verifyUtility(service, tampered)).valid).toBe(false);
}
