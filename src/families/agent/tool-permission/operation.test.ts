import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst } from '../../../../test/support/http.ts';

const service = useTestService();

const url = () => `${service.url}/v1/mcp/threatmodel/tool-permission`;
const example = findOperation('mcp.threatmodel.tool-permission')!.example as Record<string, unknown>;

describe('tool-permission over HTTP', () => {
  it('quotes the example with 402 and answers malformed input 422 naming the field', async () => {
    expect((await postJson(url(), example)).status).toBe(402);
    const cases: Array<[unknown, string]> = [
      [{ manifest: { tools: [] } }, 'manifest.tools'],
      [{ manifest: { tools: [{ description: 'no name' }] } }, 'manifest.tools.0.name'],
      [{ manifest: { tools: [{ name: 'x', permissions: 'fs:*' }] } }, 'manifest.tools.0.permissions'],
      [{ ...example, ownership_proof: { method: 'trust-me', subject: 's', evidence: 'e' } }, 'ownership_proof.method'],
      [{ tools: [] }, 'manifest'],
    ];
    for (const [body, path] of cases) {
      const res = await postJson(url(), body);
      expect(res.status, path).toBe(422);
      expect((res.body.issues as Array<{ path: string }>).map((i) => i.path), path).toContain(path);
    }
  });

  it('gives CRITICAL for the example only with an ownership proof, and keeps unknown manifest members in the digest', async () => {
    const proved = await runAgainst(service, 'mcp.threatmodel.tool-permission', { ...example, ownership_proof: { method: 'dns-txt', subject: 'mcp.example', evidence: 'owner=0xabc' } });
    expect(proved.record).toMatchObject({ riskLevel: 'CRITICAL', levelCap: null });
    const plain = await runAgainst(service, 'mcp.threatmodel.tool-permission', example);
    const extra = await runAgainst(service, 'mcp.threatmodel.tool-permission', { ...example, manifest: { ...(example.manifest as object), nextCursor: 'c2' } });
    expect(extra.record.manifestSha256).not.toBe(plain.record.manifestSha256);
  });

  it('refuses more than 200,000 characters of model-facing text before the quote, counting schema descriptions and titles', async () => {
    const tool = (description: string, title: string) => ({ name: 'x', description: 'Reads.', inputSchema: { type: 'object', title, properties: { p: { type: 'string', description } } } });
    const atLimit = await postJson(url(), { manifest: { tools: [tool('<' + ' '.repeat(199_985), 'Title ab')] } });
    expect(atLimit.status).toBe(402);
    const over = await postJson(url(), { manifest: { tools: [tool('<' + ' '.repeat(199_985), 'Title abc')] } });
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ error: 'model_text_too_long', outcome: 'INVALID-INPUT', issues: [{ path: 'manifest.tools' }] });
    expect(over.headers.get('payment-required')).toBeNull();
  });
});
