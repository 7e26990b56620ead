import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson } from '../../../../test/support/http.ts';
import { threatModel } from './operation.ts';
import { MAX_ELEMENTS, MAX_INPUTS_PER_ELEMENT, MAX_NAME_LENGTH, MAX_THREATS } from './limits.ts';

const service = useTestService();
type Answer = { evidenceCore: Record<string, JsonValue> & { attestation_id: string }; sha256: string; ed25519Sig: string; already_recorded?: unknown };

describe('threat model over HTTP', () => {
  it('quotes with 402 and refuses a manifest that is not an object with 422', async () => {
    expect((await postJson(`${service.url}/v1/security/threatmodel`, threatModel.example)).status).toBe(402);
    expect((await postJson(`${service.url}/v1/security/threatmodel`, { manifest: [] })).status).toBe(422);
  });

  it('refuses a manifest nested deeper than 32 levels before the quote: hashing it overflowed the stack and a paid call was answered 500', async () => {
    const body = `{"manifest":{"tools":[],"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const answer = await fetch(`${service.url}/v1/security/threatmodel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({ issues: [{ path: 'manifest', message: 'must not nest deeper than 32 levels' }] });
  });

  it('is paid, read back right after the call under its attestation_id, and the same manifest gives the same id', async () => {
    const pay = createPayingFetch();
    const call = async () => (await (await pay(`${service.url}/v1/security/threatmodel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(threatModel.example) })).json()) as Answer;
    const first = await call();
    const read = (await (await fetch(`${service.url}/v1/security/threatmodel/verify/${first.evidenceCore.attestation_id}`)).json()) as Answer & { found: boolean };
    expect(read).toMatchObject({ found: true, attestation_id: first.evidenceCore.attestation_id, sha256: first.sha256, ed25519Sig: first.ed25519Sig });
    expect(read.evidenceCore).toEqual(first.evidenceCore);
    const { publicKey } = (await (await fetch(`${service.url}/v1/security/threatmodel/public-key`)).json()) as { publicKey: string };
    expect(checkSignedRecord(read.evidenceCore, read.sha256, read.ed25519Sig, publicKey).valid).toBe(true);
    const second = await call();
    expect(second.evidenceCore.attestation_id).toBe(first.evidenceCore.attestation_id);
    expect(second.evidenceCore).toEqual(first.evidenceCore);
    expect((await (await fetch(`${service.url}/v1/security/threatmodel/verify/${'0'.repeat(64)}`)).json())).toMatchObject({ found: false });
  });

  describe('a manifest beyond what one model covers is refused before the quote (422 manifest_too_large, nothing to pay)', () => {
    const refused = async (manifest: Record<string, unknown>, message: RegExp) => {
      const answer = await postJson(`${service.url}/v1/security/threatmodel`, { manifest });
      expect(answer.status).toBe(422);
      expect(answer.headers.get('payment-required')).toBeNull();
      expect(answer.body).toMatchObject({ error: 'manifest_too_large', outcome: 'INVALID-INPUT' });
      expect(String(answer.body['message'])).toMatch(message);
    };
    const tool = { name: 'run_sql', inputSchema: { type: 'object', properties: { query: { type: 'string' } } } };

    it('2,000 empty tools (8 KB, a 6.7 MB model before) and one tool too many', async () => {
      await refused({ tools: Array.from({ length: 2_000 }, () => ({})) }, /2000 tools: at most 500/);
      await refused({ tools: Array.from({ length: MAX_ELEMENTS + 1 }, () => ({})) }, /501 tools/);
      expect((await postJson(`${service.url}/v1/security/threatmodel`, { manifest: { tools: Array.from({ length: MAX_ELEMENTS }, () => ({})) } })).status).toBe(402);
    });

    it('an OpenAPI document of more operations, a tool of more inputs, a longer name, or more threats than listed in one model', async () => {
      const paths = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`/p${i}`, { get: {}, put: {}, post: {}, delete: {}, patch: {} }]));
      await refused({ openapi: '3.1.0', paths }, /505 operations: at most 500/);
      const properties = Object.fromEntries(Array.from({ length: MAX_INPUTS_PER_ELEMENT + 1 }, (_, i) => [`url${i}`, { type: 'string' }]));
      await refused({ tools: [{ name: 'wide', inputSchema: { type: 'object', properties } }] }, /tool:wide has 101 inputs: at most 100/);
      await refused({ tools: [{ ...tool, name: 'x'.repeat(MAX_NAME_LENGTH + 1) }] }, /a tool name of 129 characters/);
      // run_sql raises 5 threats: 401 of them raise 2,005.
      await refused({ tools: Array.from({ length: MAX_THREATS / 5 + 1 }, () => tool) }, /raises 2005 threats: at most 2000/);
      expect((await postJson(`${service.url}/v1/security/threatmodel`, { manifest: { tools: Array.from({ length: MAX_THREATS / 5 }, () => tool) } })).status).toBe(402);
    });
  });
});
