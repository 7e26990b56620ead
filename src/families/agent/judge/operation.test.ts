import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers, verifyBody } from '../../../../test/support/http.ts';

const service = useTestService();

const judge = findOperation('mcp.eval.judge')!;
const url = () => `${service.url}/v1/mcp/eval/judge`;

describe('judge over HTTP', () => {
  it('quotes the catalogue example with 402', async () => {
    expect((await postJson(url(), judge.example)).status).toBe(402);
  });

  it('answers a malformed rubric 422 naming the field and the reason', async () => {
    const base = { response_a: 'a', response_b: 'b' };
    const cases: Array<[unknown, string]> = [
      [[], 'rubric'],
      [[{ id: 'r', weight: 1, type: 'regex', pattern: '(' }], 'rubric.0.pattern'],
      [[{ id: 'l', weight: 1, type: 'length', unit: 'chars' }], 'rubric.0.min'],
      [[{ id: 'x', weight: 0, type: 'contains', text: 'a' }], 'rubric.0.weight'],
      [[{ id: 'x', weight: 1, type: 'telepathy' }], 'rubric.0.type'],
      [[{ id: 'x', weight: 1, type: 'contains', text: 'a' }, { id: 'x', weight: 1, type: 'contains', text: 'b' }], 'rubric'],
    ];
    for (const [rubric, path] of cases) {
      const res = await postJson(url(), { ...base, rubric });
      expect(res.status, path).toBe(422);
      expect((res.body.issues as Array<{ path: string }>).map((i) => i.path), path).toContain(path);
    }
  });

  it('signs the verdictCore and re-checks it on the verify route; every tamper fails', async () => {
    const result = await runAgainst(service, 'mcp.eval.judge', judge.example);
    expect(result.body).toHaveProperty('verdictCore.winner', 'a');
    const { sha256, ed25519Sig } = result.seal;
    expect((await verifyBody(service, 'GET', '/v1/mcp/eval/judge/verify', result.record, sha256, ed25519Sig)).valid).toBe(true);
    for (const t of tampers(result.record as Record<string, JsonValue>, sha256, ed25519Sig))
      expect((await verifyBody(service, 'GET', '/v1/mcp/eval/judge/verify', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
  });

  it('signs INSUFFICIENT-DATA with no grade when no criterion can be assessed', async () => {
    const result = await runAgainst(service, 'mcp.eval.judge', { response_a: 'a', response_b: 'b', rubric: [{ id: 'ed', weight: 1, type: 'edit_distance' }] });
    expect(result.record).toMatchObject({ outcome: 'INSUFFICIENT-DATA', grade: null, winner: null });
  });

  it('refuses a rubric whose regex work over both responses is too large, before the quote; grades a too-deep JSON response as failing', async () => {
    const pair = { response_a: 'a'.repeat(7071), response_b: 'b'.repeat(7071) };
    const rubric = ['[^y]*y', '[^x]*x', '.*y'].map((pattern, i) => ({ id: `r${i}`, weight: 1, type: 'regex', pattern }));
    const refused = await postJson(url(), { ...pair, rubric });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 'rubric_too_costly', outcome: 'INVALID-INPUT' });
    expect(refused.headers.get('payment-required')).toBeNull();
    const deep = { response_a: '['.repeat(9999) + ']'.repeat(9999), response_b: '1', rubric: [{ id: 'e', weight: 1, type: 'json_schema', schema: { enum: [1] } }] };
    expect((await postJson(url(), deep)).status).toBe(402);
    const result = await runAgainst(service, 'mcp.eval.judge', deep);
    expect(result.record).toMatchObject({ winner: 'b', criteria: [{ a: { passed: false, detail: 'response JSON nests deeper than 32 levels' } }] });
  });
});
