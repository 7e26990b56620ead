import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { postTo, useTestService } from '../../../../test/support/service.ts';
import { runAgainst } from '../../../../test/support/http.ts';

const service = useTestService();
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const jws = (payload: string) => `${b64url('{"alg":"EdDSA"}')}.${b64url(payload)}.${Buffer.alloc(64).toString('base64url')}`;

describe('receipt check of a JWS whose payload is not I-JSON', () => {
  // Found by fuzzing: the first answered 500 (Infinity cannot be canonicalised); the others were
  // signed with the payload altered or in a form the bureau's own verify route refuses.
  const notIJson = /^the JWS payload is not I-JSON \(RFC 7493\)/;
  const cases: Array<[string, RegExp]> = [
    ['{"issuedAt":1e400}', notIJson],
    ['{"__proto__":{"injected":true},"version":1}', notIJson],
    ['{"a":"\\ud800"}', notIJson],
    ['{"n":1e-400,"big":123456789012345678901234567890}', notIJson],
    // Carried one level down, this payload would make a record deeper than the verify route takes.
    [`${'{"a":'.repeat(32)}1${'}'.repeat(32)}`, /^the JWS payload must not nest deeper than 31 levels$/],
  ];

  it.each(cases)('%s is a failed envelope check, and the signed result re-checks valid on /v1/bureau/verify', async (payload, evidence) => {
    const result = await runAgainst(service, 'bureau.receipt-check', { artefact: 'receipt', signed: { format: 'jws', signature: jws(payload) } });
    const record = result.record as JsonObject & { checks: Array<{ id: string; status: string; evidence?: string }> };
    expect(record).toMatchObject({ outcome: 'NON-CONFORMANT', format: 'jws', payload: null, defects: ['ORC-FMT-001'] });
    expect(record.checks.find((c) => c.id === 'ORC-FMT-001')?.evidence).toMatch(evidence);
    const res = await postTo(service, '/v1/bureau/verify', { evidenceCore: record, sha256: result.seal.sha256, signature: result.seal.ed25519Sig });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ valid: true });
  });
});

describe('receipt check catalogue example', () => {
  it('checks a genuinely signed receipt: every check that applies passes, the signature included', async () => {
    const op = findOperation('bureau.receipt-check')!;
    const { record } = await runAgainst(service, op.id, op.example);
    const statuses = Object.fromEntries((record.checks as Array<{ id: string; status: string }>).map((c) => [c.id, c.status]));
    expect(statuses).toEqual({ 'ORC-FMT-001': 'pass', 'ORC-REQ-001': 'pass', 'ORC-NET-001': 'pass', 'ORC-AMT-001': 'not-provided', 'ORC-CON-001': 'pass', 'ORC-SIG-001': 'pass' });
    expect(record).toMatchObject({ outcome: 'CONFORMANT', recoveredSigner: '0xf84207d3842ab58d9efb1cf5cca2eeeb5e1c2617', evidence_source: 'caller-supplied' });
  });
});
