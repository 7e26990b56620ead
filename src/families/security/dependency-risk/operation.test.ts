import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, type JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers, verifyBody } from '../../../../test/support/http.ts';
import { findOperation } from '../../../catalog/index.ts';
import { MAX_DEPENDENCIES } from './input.ts';

const service = useTestService();
const path = '/v1/security/dependency-risk';

const lockfile = {
  name: 'shop-api',
  lockfileVersion: 3,
  packages: {
    '': { name: 'shop-api', version: '1.0.0' },
    'node_modules/lodash': { version: '4.17.20', resolved: 'https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz', integrity: 'sha512-x', license: 'MIT' },
    'node_modules/express': { version: '4.21.2', dependencies: { qs: '6.13.0' } },
    'node_modules/left-pad': { version: '1.3.0' },
  },
};

/** Offline: the family public key, RFC 8785 bytes, SHA-256, Ed25519. */
async function recheckOffline(record: JsonValue, sha256: string, signature: string): Promise<boolean> {
  const published = (await (await fetch(`${service.url}/v1/compliance/public-key`)).json()) as { publicKey: string };
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(published.publicKey, 'hex').toString('base64url') }, format: 'jwk' });
  const bytes = canonicalBytes(record);
  return createHash('sha256').update(bytes).digest('hex') === sha256 && verify(null, bytes, key, Buffer.from(signature, 'hex'));
}

describe('dependency risk over HTTP', () => {
  it('quotes with 402; answers a bad document with 422 naming the field, and none or two documents before the quote', async () => {
    expect((await postJson(`${service.url}${path}`, { package_lock: lockfile })).status).toBe(402);
    const v1 = await postJson(`${service.url}${path}`, { package_lock: { ...lockfile, lockfileVersion: 1 } });
    expect(v1).toMatchObject({ status: 422, body: { issues: [{ path: 'package_lock.lockfileVersion' }] } });
    const none = await postJson(`${service.url}${path}`, {});
    expect(none).toMatchObject({ status: 422, body: { error: 'one_document_required', outcome: 'INVALID-INPUT' } });
    const two = await postJson(`${service.url}${path}`, { package_lock: lockfile, purls: ['pkg:npm/lodash@4.17.21'] });
    expect(two).toMatchObject({ status: 422, body: { error: 'one_document_required', issues: [{ path: 'package_lock' }, { path: 'purls' }] } });
  });

  it('signs the evidenceCore with the compliance key; it re-checks on its free route and offline with the public key, and every tamper fails', async () => {
    const result = await runAgainst(service, 'security.dependency-risk', { package_lock: lockfile });
    expect(result.body).toMatchObject({ evidenceCore: { outcome: 'VULNERABLE', summary: { dependencies: 3, vulnerable: 1, not_affected: 1, unknown: 1 } } });
    expect(result.body.publicKeyUrl).toBe(`${service.url}/v1/compliance/public-key`);
    expect(result.body.verifyUrl).toBe(`${service.url}/v1/security/dependency-risk/recheck`);
    const { sha256, ed25519Sig } = result.seal;
    expect(await recheckOffline(result.record, sha256, ed25519Sig)).toBe(true);
    expect(await verifyBody(service, 'POST', '/v1/security/dependency-risk/recheck', result.record, sha256, ed25519Sig)).toMatchObject({ valid: true });
    for (const t of tampers(result.record as Record<string, JsonValue>, sha256, ed25519Sig)) {
      expect(await recheckOffline(t.record, t.sha256, t.signature), t.name).toBe(false);
      expect((await verifyBody(service, 'POST', '/v1/security/dependency-risk/recheck', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
    }
  });

  it('re-checks only dependency-risk records: a compliance snapshot, signed with the same key, is not valid here', async () => {
    const snapshot = await runAgainst(service, 'compliance.check', findOperation('compliance.check')!.example);
    expect(snapshot.record).toMatchObject({ kind: 'compliance-snapshot' });
    const answer = await verifyBody(service, 'POST', '/v1/security/dependency-risk/recheck', snapshot.record, snapshot.seal.sha256, snapshot.seal.ed25519Sig);
    expect(answer).toMatchObject({ valid: false, reason: 'a compliance-snapshot record is not re-checked here (expected dependency-risk)' });
  });

  it('refuses more than 20,000 dependencies in any form before the quote; the engine runs on an engine thread', async () => {
    const packages = Object.fromEntries(Array.from({ length: MAX_DEPENDENCIES + 1 }, (_, i) => [`node_modules/p${i}`, { version: '1.0.0' }]));
    const lock = await postJson(`${service.url}${path}`, { package_lock: { lockfileVersion: 3, packages: { '': { name: 'app' }, ...packages } } });
    expect(lock).toMatchObject({ status: 422, body: { error: 'too_many_dependencies', outcome: 'INVALID-INPUT', issues: [{ path: 'package_lock' }] } });
    expect(lock.headers.get('payment-required')).toBeNull();
    const nested = { type: 'library', name: 'n', components: Array.from({ length: MAX_DEPENDENCIES }, () => ({ type: 'library', name: 'c' })) };
    const sbom = await postJson(`${service.url}${path}`, { cyclonedx: { bomFormat: 'CycloneDX', specVersion: '1.6', components: [nested] } });
    expect(sbom).toMatchObject({ status: 422, body: { error: 'too_many_dependencies', message: 'the document lists 20001 dependencies: at most 20000 are assessed in one call' } });
    expect((await postJson(`${service.url}${path}`, { purls: Array.from({ length: MAX_DEPENDENCIES }, (_, i) => `pkg:golang/golang.org/x/net@v0.0.${i}`) })).status).toBe(402);
    expect(findOperation('security.dependency-risk')!.command?.runsOnEngineThread).toBe(true);
  });
});
