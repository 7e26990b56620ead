import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assessRegistration, catalogEntryId, countReferences, VERIFY_CATALOG_RULESET } from './engine.ts';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { edSigner, evmSigner } from '../../../../test/support/keys.ts';

const host = 'attest.example.org';
const signer = edSigner(50);
const claim: JsonObject = { kind: 'model-eval', attestedAt: 1_767_225_600, claim: { verifyUrl: `https://${host}/v1/veritrack/verify`, note: `see ${host} and ${host}` } };
const full = { claim, claim_sha256: canonicalSha256(claim), signature: signer.sign(canonicalText(claim)), public_key: signer.hex, source_url: 'https://example.org/out/1' };

describe('verify-catalog engine', () => {
  it('gives a trust index only when integrity and signature are verified and the source is https', () => {
    const core = assessRegistration(full, host, 10);
    expect(core).toMatchObject({
      kind: 'verify-catalog-entry',
      ruleset: VERIFY_CATALOG_RULESET,
      claim,
      claim_sha256: full.claim_sha256,
      integrity: 'VERIFIED',
      signature: { status: 'VERIFIED', value: full.signature, public_key: signer.hex },
      source: { status: 'HTTPS-URL-SUPPLIED', url: full.source_url },
      service_host: host,
      service_references: 3,
      trust_index: 1,
      deferred_reasons: [],
      registeredAt: 10,
    });
    expect(assessRegistration({ ...full, claim: { other: 1 }, claim_sha256: canonicalSha256({ other: 1 }), signature: signer.sign(canonicalText({ other: 1 })) }, host, 1).trust_index).toBe(0.7);
  });

  it('verifies an EIP-191 signature over the canonical claim when the key is an address', async () => {
    const w = evmSigner(0x51);
    const core = assessRegistration({ ...full, signature: await w.sign(canonicalText(claim)), public_key: w.address }, host, 1);
    expect(core.signature).toMatchObject({ status: 'VERIFIED' });
  });

  it.each([
    ['integrity MISMATCH', { claim_sha256: '0'.repeat(64) }, 'integrity', 'MISMATCH'],
    ['integrity NOT-PROVIDED', { claim_sha256: undefined }, 'integrity', 'NOT-PROVIDED'],
    ['signature NOT-PROVIDED', { signature: undefined }, 'signature', 'NOT-PROVIDED'],
    ['signature MALFORMED', { signature: 'abc' }, 'signature', 'MALFORMED'],
    ['signature WELL-FORMED (no key)', { public_key: undefined }, 'signature', 'WELL-FORMED'],
    ['signature FAILED (other key)', { public_key: edSigner(51).hex }, 'signature', 'FAILED'],
    ['signature FAILED (unusable key)', { public_key: 'did:web:example.org' }, 'signature', 'FAILED'],
    ['source NOT-HTTPS', { source_url: 'http://example.org/out/1' }, 'source', 'NOT-HTTPS'],
    ['source NOT-PROVIDED', { source_url: undefined }, 'source', 'NOT-PROVIDED'],
  ])('%s defers the index (null) with the reason', (_name, change, member, status) => {
    const core = assessRegistration({ ...full, ...change }, host, 1);
    const value = core[member];
    expect(typeof value === 'string' ? value : (value as JsonObject).status).toBe(status);
    expect(core.trust_index).toBeNull();
    expect(core.deferred_reasons).toEqual([expect.stringContaining(`${member} ${status}`)]);
  });

  it.each(['https://a b', 'https://@', 'https://x\n', 'https://\u200bexample.org', 'https:/example.org', 'https://'])(
    'a malformed https source_url %j is not an https URL: no trust index, and the reason says what counts',
    (source_url) => {
      const core = assessRegistration({ ...full, source_url }, host, 1);
      expect(core.source).toEqual({ status: 'NOT-HTTPS', url: source_url });
      expect(core.trust_index).toBeNull();
      expect(core.deferred_reasons).toEqual([expect.stringMatching(/^source NOT-HTTPS: .*written out in full/)]);
    },
  );

  it('counts references to this service in values and keys, case-insensitively', () => {
    expect(countReferences({ [`https://${host}`]: [`x ${host.toUpperCase()} y`, 3, null, { a: host }] }, host)).toBe(3);
    expect(countReferences({ a: 'nothing here' }, host)).toBe(0);
    expect(countReferences({ a: host }, '')).toBe(0);
  });

  it('gives the same entry id to the same registration, another to another', () => {
    expect(catalogEntryId(full)).toMatch(/^[0-9a-f]{32}$/);
    expect(catalogEntryId({ ...full })).toBe(catalogEntryId(full));
    expect(catalogEntryId({ ...full, source_url: 'https://example.org/out/2' })).not.toBe(catalogEntryId(full));
  });

  it('keeps the index in [0, 1] or null, and is deterministic apart from registeredAt', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.option(fc.constantFrom('https://a.example', 'http://a.example', 'ftp://x'), { nil: undefined }),
        fc.boolean(),
        fc.nat(),
        fc.nat(),
        (c, source_url, signed, t1, t2) => {
          const reg = { claim: c as JsonObject, claim_sha256: canonicalSha256(c), source_url, ...(signed ? { signature: signer.sign(canonicalText(c)), public_key: signer.hex } : {}) };
          const a = assessRegistration(reg, host, t1);
          expect(canonicalText({ ...a, registeredAt: 0 })).toBe(canonicalText({ ...assessRegistration(reg, host, t2), registeredAt: 0 }));
          if (a.trust_index === null) expect((a.deferred_reasons as string[]).length).toBeGreaterThan(0);
          else {
            expect(a.trust_index).toBeGreaterThanOrEqual(0);
            expect(a.trust_index).toBeLessThanOrEqual(1);
            expect(signed && source_url === 'https://a.example').toBe(true);
          }
        },
      ),
    );
  });
});
