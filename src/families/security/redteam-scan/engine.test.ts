import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { didKeyOf } from '../../../transparency/eddsa-jcs-2022.ts';
import { inScope, proofMessage, type AuthorizationProof } from './authorization.ts';
import { authorizedScan, REDTEAM_RULESET } from './engine.ts';

const NOW = 1_767_225_600;
const seed = createHash('sha256').update('test issuer').digest();
const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const issuer = didKeyOf(createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(12)).did;
const signed = (p: Omit<AuthorizationProof, 'signature' | 'issuer'>): AuthorizationProof => {
  const unsigned = { ...p, issuer };
  return { ...unsigned, signature: sign(null, Buffer.from(proofMessage(unsigned)), privateKey).toString('hex') };
};
const target = 'https://api.example.com';
const valid = signed({ target, scope: ['api.example.com'], not_before: NOW - 3600, not_after: NOW + 3600 });
const OPENAPI: JsonObject = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  servers: [{ url: 'http://api.example.com' }],
  paths: {
    '/users/{id}': { delete: { responses: { '204': { description: 'gone' } } } },
    '/login': { get: { parameters: [{ name: 'password', in: 'query', schema: { type: 'string' } }], responses: { '200': { description: 'ok' } } } },
  },
};

describe('the red-team gate', () => {
  it('no proof: a signed refusal that says the proof is missing', () => {
    expect(authorizedScan({ target }, NOW)).toMatchObject({ outcome: 'REFUSED', refusal_reasons: ['missing: no authorization proof was supplied'], findings: [] });
  });

  it('an expired proof, a forged signature and an out-of-scope target are each refused with the reason', () => {
    const expired = signed({ target, scope: ['api.example.com'], not_before: NOW - 7200, not_after: NOW - 3600 });
    expect(authorizedScan({ target, authorization: [expired] }, NOW)['refusal_reasons']).toEqual([expect.stringMatching(/^proof 0: expired/)]);
    const forged = { ...valid, scope: ['*.example.com'] };
    expect(authorizedScan({ target, authorization: [forged] }, NOW)['refusal_reasons']).toEqual([expect.stringMatching(/^proof 0: bad signature/)]);
    const elsewhere = signed({ target, scope: ['other.example.org'], not_before: NOW - 1, not_after: NOW + 1 });
    expect(authorizedScan({ target, authorization: [elsewhere] }, NOW)['refusal_reasons']).toEqual([expect.stringMatching(/^proof 0: out of scope/)]);
  });

  it('a valid proof: findings from the artefacts, and the record says control was not verified', () => {
    const record = authorizedScan({ target, authorization: [valid], artefacts: { openapi: OPENAPI, response_headers: { 'X-Powered-By': 'Express' }, security_txt: 'Contact: mailto:security@example.com\nExpires: 2027-06-30T00:00:00Z\n' } }, NOW);
    expect(record).toMatchObject({ outcome: 'FINDINGS-HIGH', accepted_proof: 0, control_of_target: expect.stringMatching(/did not verify that the issuer controls the target/) });
    const ids = (record['findings'] as JsonObject[]).map((f) => `${f['id']} ${f['where']}`);
    expect(ids).toEqual(expect.arrayContaining(['API8:2023 servers: http://api.example.com', 'API2:2023 DELETE /users/{id}', 'API1:2023 DELETE /users/{id}', 'API2:2023 GET /login ?password', 'OSHP:Strict-Transport-Security Strict-Transport-Security', 'OSHP:x-powered-by x-powered-by', 'RFC9116:Signature Signature']));
  });

  it('a parameter a path declares for all its operations is one finding under the path, not one per operation', () => {
    const item = { parameters: [{ name: 'url', in: 'query', schema: { type: 'string' } }], get: { responses: { '429': {} } }, put: { responses: { '429': {} } }, delete: { responses: { '429': {} } } };
    const record = authorizedScan({ target, authorization: [valid], artefacts: { openapi: { openapi: '3.1.0', security: [{ key: [] }], paths: { '/{id}': item } } } }, NOW);
    expect(record['ruleset']).toMatchObject({ version: REDTEAM_RULESET.version });
    expect(REDTEAM_RULESET.version).toBe('2');
    const findings = (record['findings'] as JsonObject[]).map((f) => `${f['id']} ${f['where']}`);
    expect(findings).toEqual(['API4:2023 /{id} query url', 'API7:2023 /{id} url']);
  });

  it('an EIP-191 proof by an EVM address is accepted too', async () => {
    const account = privateKeyToAccount(`0x${'22'.repeat(32)}`);
    const unsigned = { target, scope: ['https://api.example.com'], not_before: NOW - 1, not_after: NOW + 1, issuer: account.address };
    const proof = { ...unsigned, signature: await account.signMessage({ message: proofMessage(unsigned) }) };
    expect(authorizedScan({ target, authorization: [proof], artefacts: { security_txt: 'Expires: 2020-01-01T00:00:00Z\n' } }, NOW)).toMatchObject({ outcome: 'FINDINGS-HIGH', accepted_proof: 0 });
  });

  it('scope: hosts, wildcards that exclude the bare domain, and URL prefixes', () => {
    expect(inScope('https://a.example.com/x', ['*.example.com'])).toBe(true);
    expect(inScope('https://example.com', ['*.example.com'])).toBe(false);
    expect(inScope('https://api.example.com/v1/users', ['https://api.example.com/v1/'])).toBe(true);
    expect(inScope('https://api.example.com/v2', ['https://api.example.com/v1/'])).toBe(false);
  });
});
