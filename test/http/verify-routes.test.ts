import { describe, expect, it } from 'vitest';
import { freeRoutes } from '../../src/catalog/index.ts';
import { verifyResultSchema } from '../../src/kernel/route-kit/verify-route.ts';
import { inputJsonSchema } from '../../src/payments/x402/quote.ts';
import {
  complianceRecord,
  identityRecord,
  readinessRecord,
  receiptRecord,
  trustedRouteRecord,
  utilityRecord,
  veritrackRecord,
} from '../../src/kernel/route-kit/records.ts';
import type { JsonObject } from '../../src/signing/rfc8785.ts';
import type { KeyFamily } from '../../src/signing/key-families.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { seal } from '../../src/signing/seal.ts';
import { TEST_SECRET, useTestService } from '../support/service.ts';

const keyring = createKeyring(TEST_SECRET);
const at = 1_767_225_600;
const json = (v: unknown) => JSON.stringify(v);

interface Fixture {
  keyFamily: KeyFamily;
  record: JsonObject;
  /** Content parameters that rebuild `record`. */
  params: Record<string, string>;
  /** The timestamp parameter, when the route has one. */
  timestamp?: string;
}

const bodyFixture = (keyFamily: KeyFamily, record: JsonObject): Fixture => ({ keyFamily, record, params: { body: json(record) } });
const sample = { outcome: 'SAMPLE', score: 0.5, items: ['a', 'b'], nested: { k: 'v' } };

/** One genuine record per verify route, and the parameters a verifier sends for it. */
const fixtures: Record<string, Fixture> = {
  '/v1/veritrack/verify': {
    keyFamily: 'veritrack',
    record: veritrackRecord({ kind: 'model-eval', attestedAt: at, claim: { score: 0.81 } }),
    params: { kind: 'model-eval', attested_at: String(at), claim: json({ score: 0.81 }) },
    timestamp: 'attested_at',
  },
  '/v1/compliance/verify': {
    keyFamily: 'compliance',
    record: complianceRecord({ kind: 'eu-ai-act', assessedAt: at, asset: 'hiring-screener', assessment: { class: 'high-risk' } }),
    params: { kind: 'eu-ai-act', assessed_at: String(at), asset: 'hiring-screener', assessment: json({ class: 'high-risk' }) },
    timestamp: 'assessed_at',
  },
  '/v1/agent-reputation/verify': { keyFamily: 'agent-reputation', record: { ...sample, reputation_score: 0.7 }, params: { evidence: json({ ...sample, reputation_score: 0.7 }) } },
  '/v1/agent-reputation/trusted-route/verify': {
    keyFamily: 'trusted-route',
    record: trustedRouteRecord([{ id: 'r1', rank: 1 }, { id: 'r2', rank: 2 }]),
    params: { ranking: json([{ id: 'r1', rank: 1 }, { id: 'r2', rank: 2 }]) },
  },
  '/v1/receipts/verify': {
    keyFamily: 'receipts',
    record: receiptRecord({ kind: 'receipt', receiptType: 'payment', tx: '0xabc', action: 'pay', actor: 'alice', metadata: { ref: 7 }, mintsAt: at }),
    params: { kind: 'receipt', receipt_type: 'payment', tx: '0xabc', action: 'pay', actor: 'alice', metadata: json({ ref: 7 }), mints_at: String(at) },
    timestamp: 'mints_at',
  },
  '/v1/identity/control-proof/verify': {
    keyFamily: 'identity',
    record: identityRecord({ identifier: 'did:web:example.org', control_method: 'did-web', control_evidence: { url: 'https://example.org' }, verdict: 'CONTROL-DOCUMENTED', claimsAt: at }),
    params: { identifier: 'did:web:example.org', control_method: 'did-web', control_evidence: json({ url: 'https://example.org' }), verdict: 'CONTROL-DOCUMENTED', claims_at: String(at) },
    timestamp: 'claims_at',
  },
  '/v1/readiness/attest/verify': {
    keyFamily: 'readiness',
    record: readinessRecord({ target: 'agent-7', policy: { escalation: 300 }, evidence: ['e1'], custodian: 'ops', verdict: 'READINESS-GAP', attestsAt: at }),
    params: { target: 'agent-7', policy: json({ escalation: 300 }), evidence: json(['e1']), custodian: 'ops', verdict: 'READINESS-GAP', attests_at: String(at) },
    timestamp: 'attests_at',
  },
  '/v1/utils/verify': {
    keyFamily: 'utils',
    record: utilityRecord({ kind: 'utility', utility: 'schema-cleanup', servedAt: at, utility_result: { rows: 3 } }),
    params: { kind: 'utility', utility: 'schema-cleanup', served_at: String(at), result: json({ rows: 3 }) },
    timestamp: 'served_at',
  },
  '/v1/evidence/verify': bodyFixture('evidence', { entryId: 'e1', ...sample }),
  '/v1/memory/verify': bodyFixture('memory', { agent_id: 'a', key: 'k', version: 1, ...sample }),
  '/v1/synthesis/verify': bodyFixture('synthesis', sample),
  '/v1/containment/verify': bodyFixture('containment', sample),
  '/v1/mcp/eval/judge/verify': bodyFixture('judge', sample),
  '/v1/data/verify': bodyFixture('data', sample),
  '/v1/verify-catalog/recheck': bodyFixture('verify-catalog', sample),
  '/v1/mcp/verify/uptime/recheck': bodyFixture('uptime', sample),
  '/v1/mcp/threatmodel/tool-permission/recheck': bodyFixture('tool-permission', sample),
  '/v1/security/redteam/recheck': bodyFixture('redteam', sample),
  '/v1/budget/preflight/recheck': bodyFixture('budget', sample),
  '/v1/security/dependency-risk/recheck': bodyFixture('compliance', { kind: 'dependency-risk', ...sample }),
  '/api/ebook/receipt/recheck': bodyFixture('utils', { kind: 'ebook-purchase', ...sample }),
  '/v1/bureau/verify': bodyFixture('governance', { kind: 'bureau.audit', ...sample }),
  '/v1/governance/verify': bodyFixture('governance', { kind: 'governance.lease', ...sample }),
};

/** Changes one character in the middle of a value (a digit stays a digit, so integers stay integers). */
function changeOneCharacter(value: string): string {
  const i = Math.floor(value.length / 2);
  const c = value[i]!;
  const replacement = /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : c === 'x' ? 'y' : 'x';
  return value.slice(0, i) + replacement + value.slice(i + 1);
}

const verifyRoutes = freeRoutes().filter((r) => r.output === verifyResultSchema);

describe('free verify routes', () => {
  const service = useTestService();

  async function verify(method: string, path: string, params: Record<string, string>) {
    const res = await fetch(`${service.url}${path}?${new URLSearchParams(params)}`, { method });
    return { status: res.status, body: (await res.json()) as { valid?: boolean; checks?: unknown; keyId?: string } };
  }

  it('has a fixture for each built verify and recheck route (one per path: a path answering GET and POST shares it)', () => {
    expect([...new Set(verifyRoutes.map((r) => r.path))].sort()).toEqual(Object.keys(fixtures).sort());
  });

  for (const route of verifyRoutes) {
    const f = fixtures[route.path]!;
    const s = seal(keyring, f.keyFamily, f.record);
    const genuine: Record<string, string> = { ...f.params, sha256: s.sha256, signature: s.ed25519Sig };

    describe(`${route.method} ${route.path}`, () => {
      it('accepts the genuine record', async () => {
        const { status, body } = await verify(route.method, route.path, genuine);
        expect(status).toBe(200);
        expect(body).toMatchObject({ valid: true, checks: { sha256: true, signature: true }, keyId: s.keyId });
      });

      it('refuses one changed character in any content, hash, signature or timestamp parameter', async () => {
        for (const name of Object.keys(genuine)) {
          const { status, body } = await verify(route.method, route.path, { ...genuine, [name]: changeOneCharacter(genuine[name]!) });
          expect(status, name).toBe(200);
          expect(body.valid, name).toBe(false);
        }
      });

      it('answers 422 when a required parameter is missing', async () => {
        const required = (inputJsonSchema(route.input!).required ?? []) as string[];
        expect(required).toEqual(expect.arrayContaining(['sha256', 'signature', ...(f.timestamp ? [f.timestamp] : [])]));
        for (const name of required) {
          const { [name]: _dropped, ...rest } = genuine;
          const { status } = await verify(route.method, route.path, rest);
          expect(status, name).toBe(422);
        }
      });

      if (f.timestamp) {
        it('answers 422 when the timestamp is not an integer', async () => {
          for (const bad of ['1.5', 'abc', '', '1e9']) expect((await verify(route.method, route.path, { ...genuine, [f.timestamp!]: bad })).status).toBe(422);
        });
      }
    });
  }

  it('takes the POST rechecks parameters from a JSON body too (records too large for a URL)', async () => {
    const f = fixtures['/v1/verify-catalog/recheck']!;
    const s = seal(keyring, f.keyFamily, f.record);
    const res = await fetch(`${service.url}/v1/verify-catalog/recheck`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...f.params, sha256: s.sha256, signature: s.ed25519Sig }),
    });
    expect(await res.json()).toMatchObject({ valid: true });
  });

  describe('a verifier who posts the paid answer as it came is told what to send instead', () => {
    async function postAnswer(path: string, answer: JsonObject) {
      const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) });
      return { status: res.status, issues: ((await res.json()) as { issues: { path: string; message: string }[] }).issues };
    }

    it('names the answer member of each parameter of a field-by-field route', async () => {
      const f = fixtures['/v1/veritrack/verify']!;
      const s = seal(keyring, f.keyFamily, f.record);
      const { status, issues } = await postAnswer('/v1/veritrack/verify', { ...f.record, sha256: s.sha256, ed25519Sig: s.ed25519Sig, keyId: s.keyId });
      expect(status).toBe(422);
      expect(issues).toEqual(
        expect.arrayContaining([
          { path: 'attested_at', message: "is required: the record's attestedAt, as digits" },
          { path: 'claim', message: 'must be JSON text (the value as JSON.stringify writes it), as in a query string' },
          { path: 'signature', message: "is required: the answer's ed25519Sig" },
        ]),
      );
    });

    it('names the signed member a body route takes, and asks for its JSON text', async () => {
      const f = fixtures['/v1/mcp/verify/uptime/recheck']!;
      const s = seal(keyring, f.keyFamily, f.record);
      const asAnswered = await postAnswer('/v1/mcp/verify/uptime/recheck', { evidenceCore: f.record, sha256: s.sha256, ed25519Sig: s.ed25519Sig });
      expect(asAnswered.issues).toContainEqual({ path: 'body', message: "is required: the signed record (the answer's evidenceCore, sealed, receipt or verdictCore), as JSON text" });
      const asValue = await postAnswer('/v1/mcp/verify/uptime/recheck', { body: f.record, sha256: s.sha256, signature: s.ed25519Sig });
      expect(asValue.status).toBe(422);
      expect(asValue.issues).toEqual([{ path: 'body', message: 'must be JSON text (the value as JSON.stringify writes it), as in a query string' }]);
    });
  });
});
