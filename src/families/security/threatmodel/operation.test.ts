import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson } from '../../../../test/support/http.ts';
import { threatModel } from './operation.ts';

const service = useTestService();
type Answer = { evidenceCore: Record<string, JsonValue> & { attestation_id: string }; sha256: string; ed25519Sig: string; already_recorded?: unknown };

describe('threat model over HTTP', () => {
  it('quotes with 402 and refuses a manifest that is not an object with 422', async () => {
    expect((await postJson(`${service.url}/v1/security/threatmodel`, threatModel.example)).status).toBe(402);
    expect((await postJson(`${service.url}/v1/security/threatmodel`, { manifest: [] })).status).toBe(422);
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
});
