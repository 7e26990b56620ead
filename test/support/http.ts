import { findOperation } from '../../src/catalog/index.ts';
import type { CallContext } from '../../src/kernel/operation.ts';
import { runOperation, type SignedResult } from '../../src/kernel/run-operation.ts';
import type { JsonValue } from '../../src/signing/rfc8785.ts';
import { postTo, type TestService } from './service.ts';
import { testCallContext } from './call-context.ts';

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/** Runs an operation's command against the running service's store and keys, as the saga would. */
export async function runAgainst(service: TestService, operationId: string, input: unknown, overrides: Partial<CallContext> = {}): Promise<SignedResult> {
  const op = findOperation(operationId)!;
  const parsed = op.input.parse(input);
  const result = await runOperation(op, parsed, testCallContext({ ...service.deps, ...overrides }));
  // The documented response schema must describe what is actually answered.
  op.output.parse(result.body);
  return result;
}

/** Calls a body verify route the way the spec names its parameters. */
export async function verifyBody(service: TestService, method: 'GET' | 'POST', path: string, record: JsonValue, sha256: string, signature: string): Promise<{ valid: boolean; reason?: string }> {
  const body = JSON.stringify(record);
  if (method === 'GET') {
    const qs = new URLSearchParams({ body, sha256, signature });
    const res = await fetch(`${service.url}${path}?${qs}`);
    return (await res.json()) as { valid: boolean; reason?: string };
  }
  const res = await postTo(service, path, { body, sha256, signature });
  return (await res.json()) as { valid: boolean; reason?: string };
}

/** Every single-member tamper of a record: changed content, hash, signature. */
export function tampers(record: Record<string, JsonValue>, sha256: string, signature: string): Array<{ name: string; record: JsonValue; sha256: string; signature: string }> {
  const flipHex = (h: string) => `${h[0] === '0' ? '1' : '0'}${h.slice(1)}`;
  const out = Object.keys(record).map((member) => ({
    name: `member ${member}`,
    record: { ...record, [member]: typeof record[member] === 'number' ? (record[member] as number) + 1 : 'tampered' } as JsonValue,
    sha256,
    signature,
  }));
  out.push({ name: 'sha256', record, sha256: flipHex(sha256), signature });
  out.push({ name: 'signature', record, sha256, signature: flipHex(signature) });
  out.push({ name: 'extra member', record: { ...record, extra: true }, sha256, signature });
  return out;
}
