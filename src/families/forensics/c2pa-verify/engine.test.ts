import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { c2paAttestationId, verifyC2paBinding } from './engine.ts';
import { c2paVerifyInputSchema, type C2paVerifyInput } from './input.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

const NOW = 1_767_225_600;
const content = createHash('sha256').update('asset bytes without the manifest').digest();
const content384 = createHash('sha384').update('asset bytes without the manifest').digest();
const LABEL = 'urn:uuid:11111111-2222-3333-4444-555555555555';
const dataHash = { alg: 'sha256', hash: content.toString('base64'), exclusions: [{ start: 20, length: 5000 }], name: 'jumbf manifest' };

/** The summary report: c2pa-rs leaves the hash assertions out of `assertions`. */
const summaryReport = (manifest: JsonObject = {}): JsonObject => ({
  active_manifest: LABEL,
  manifests: {
    [LABEL]: {
      claim_generator: 'ExampleCam/1.0 c2pa-rs/0.49.0',
      assertions: [{ label: 'c2pa.actions', data: { actions: [{ action: 'c2pa.created' }] } }],
      signature_info: { alg: 'Es256', issuer: 'Example CA', cert_serial_number: '42', time: '2025-12-31T00:00:00Z' },
      ...manifest,
    },
  },
});

/** The --detailed report: the claim plus the assertion store, hash assertion included. */
const detailedReport = (binding: JsonObject = dataHash): JsonObject => ({
  active_manifest: LABEL,
  manifests: {
    [LABEL]: {
      claim: {
        claim_generator_info: [{ name: 'ExampleCam', version: '1.0' }],
        alg: 'sha256',
        assertions: [{ url: 'self#jumbf=c2pa.assertions/c2pa.actions' }, { url: 'self#jumbf=c2pa.assertions/c2pa.hash.data' }],
      },
      assertion_store: { 'c2pa.actions': { actions: [] }, 'c2pa.hash.data': binding },
    },
  },
});

const hex = (alg: 'sha256' | 'sha384' = 'sha256') => ({ alg, value: (alg === 'sha256' ? content : content384).toString('hex') });
const run = (input: C2paVerifyInput) => verifyC2paBinding(c2paVerifyInputSchema.parse(input), NOW);

describe('C2PA binding engine', () => {
  it('BINDING-MATCH: summary report plus its hard-binding assertion', () => {
    const core = run({ manifest_store: summaryReport(), hard_binding: { label: 'c2pa.hash.data', data: dataHash }, content_hash: hex() });
    expect(core.outcome).toBe('BINDING-MATCH');
    expect(core.checks).toEqual({ algorithm_supported: true, algorithm_matches: true, hash_matches: true, claim_generator: 'LISTED', assertions: 'LISTED' });
    expect(core.signature).toMatchObject({ claim_signature: 'NOT-VERIFIED', certificate_chain: 'NOT-VERIFIED', reported_by_manifest: { alg: 'Es256', issuer: 'Example CA' } });
    expect(core.binding).toMatchObject({ label: 'c2pa.hash.data', source: 'hard_binding', alg: 'sha256', hash_hex: content.toString('hex'), exclusions: dataHash.exclusions });
    expect(core.manifest).toMatchObject({ label: LABEL, claim_generator: 'ExampleCam/1.0 c2pa-rs/0.49.0', assertions: ['c2pa.actions'] });
    expect(core.verifiedAt).toBe(NOW);
    expect(core.evidence_source).toBe('caller-supplied');
  });

  it('BINDING-MATCH: detailed report carrying the binding itself, hash as a byte array', () => {
    const core = run({ manifest_store: detailedReport({ ...dataHash, hash: [...content] }), content_hash: { alg: 'sha256', value: content.toString('base64') } });
    expect(core.outcome).toBe('BINDING-MATCH');
    expect(core.binding).toMatchObject({ source: 'manifest_store' });
    expect((core.manifest as JsonObject).claim_generator).toBe('ExampleCam/1.0');
    expect((core.content_hash as JsonObject).supplied_encoding).toBe('base64');
  });

  it('BINDING-MATCH: hard binding alone leaves the claim checks NOT-PROVIDED', () => {
    const core = run({ hard_binding: dataHash, content_hash: hex() });
    expect(core.outcome).toBe('BINDING-MATCH');
    expect(core.checks).toMatchObject({ claim_generator: 'NOT-PROVIDED', assertions: 'NOT-PROVIDED' });
    expect(core.manifest).toBeNull();
  });

  it('accepts a BMFF binding with a whole-file hash, algorithm falling back to the claim', () => {
    const bmff = { exclusions: [{ xpath: '/uuid' }], hash: content.toString('base64') };
    const store = detailedReport();
    ((store.manifests as JsonObject)[LABEL] as JsonObject).assertion_store = { 'c2pa.hash.bmff.v2': bmff, 'c2pa.actions': {} };
    expect(run({ manifest_store: store, content_hash: hex() }).outcome).toBe('BINDING-MATCH');
  });

  it('BINDING-MISMATCH when the hashes differ', () => {
    const other = createHash('sha256').update('tampered').digest('hex');
    const core = run({ hard_binding: dataHash, content_hash: { alg: 'sha256', value: other } });
    expect(core.outcome).toBe('BINDING-MISMATCH');
    expect((core.checks as JsonObject).hash_matches).toBe(false);
  });

  it('ALGORITHM-MISMATCH when the binding and the supplied hash use different algorithms', () => {
    const core = run({ hard_binding: dataHash, content_hash: hex('sha384') });
    expect(core.outcome).toBe('ALGORITHM-MISMATCH');
    expect(core.checks).toMatchObject({ algorithm_supported: true, algorithm_matches: false, hash_matches: null });
  });

  it('UNSUPPORTED-ALGORITHM for a binding algorithm outside sha256/sha384/sha512', () => {
    const core = run({ hard_binding: { ...dataHash, alg: 'md5' }, content_hash: hex() });
    expect(core.outcome).toBe('UNSUPPORTED-ALGORITHM');
    expect((core.checks as JsonObject).algorithm_supported).toBe(false);
  });

  it('normalises the binding algorithm name (SHA-256 is sha256)', () => {
    expect(run({ hard_binding: { ...dataHash, alg: 'SHA-256' }, content_hash: hex() }).outcome).toBe('BINDING-MATCH');
  });

  it('UNSUPPORTED-BINDING for a Merkle-tree BMFF binding', () => {
    const core = run({ hard_binding: { label: 'c2pa.hash.bmff.v3', data: { alg: 'sha256', exclusions: [], merkle: [{ count: 4 }] } }, content_hash: hex() });
    expect(core.outcome).toBe('UNSUPPORTED-BINDING');
  });

  it('MALFORMED-BINDING names the missing alg or hash, or a hash of the wrong length', () => {
    const { alg: _alg, ...noAlg } = dataHash;
    const a = run({ hard_binding: noAlg, content_hash: hex() });
    expect(a.outcome).toBe('MALFORMED-BINDING');
    expect(a.missing).toEqual(['hard_binding.alg']);
    const { hash: _hash, ...noHash } = dataHash;
    expect(run({ hard_binding: noHash, content_hash: hex() }).missing).toEqual(['hard_binding.hash']);
    expect(run({ hard_binding: { ...dataHash, hash: 'AAAA' }, content_hash: hex() }).outcome).toBe('MALFORMED-BINDING');
    expect(run({ hard_binding: { ...dataHash, hash: '%%%' }, content_hash: hex() }).outcome).toBe('MALFORMED-BINDING');
  });

  it('BINDING-CONFLICT when a supplied binding differs from the manifest one', () => {
    const core = run({ manifest_store: detailedReport(), hard_binding: { ...dataHash, exclusions: [] }, content_hash: hex() });
    expect(core.outcome).toBe('BINDING-CONFLICT');
    expect(run({ manifest_store: detailedReport(), hard_binding: dataHash, content_hash: hex() }).outcome).toBe('BINDING-MATCH');
  });

  it('NO-HARD-BINDING for a summary report alone (it omits hash assertions)', () => {
    const core = run({ manifest_store: summaryReport(), content_hash: hex() });
    expect(core.outcome).toBe('NO-HARD-BINDING');
    expect(core.missing).toEqual(['hard_binding']);
    expect(core.binding).toBeNull();
  });

  it('NO-ACTIVE-MANIFEST when the store names no manifest it contains', () => {
    const dangling = { ...summaryReport(), active_manifest: 'urn:uuid:other' };
    expect(run({ manifest_store: dangling, hard_binding: dataHash, content_hash: hex() })).toMatchObject({ outcome: 'NO-ACTIVE-MANIFEST', missing: ['manifest_store.manifests[active_manifest]'] });
    const twoWithoutActive = { manifests: { a: {}, b: {} } };
    expect(run({ manifest_store: twoWithoutActive, hard_binding: dataHash, content_hash: hex() }).missing).toEqual(['manifest_store.active_manifest']);
    expect(run({ manifest_store: { title: 'x' }, hard_binding: dataHash, content_hash: hex() }).missing).toEqual(['manifest_store.manifests']);
  });

  it('CLAIM-INCOMPLETE when the binding matches but the claim lists no generator or no assertions', () => {
    const noGenerator = run({ manifest_store: summaryReport({ claim_generator: '' }), hard_binding: dataHash, content_hash: hex() });
    expect(noGenerator.outcome).toBe('CLAIM-INCOMPLETE');
    expect((noGenerator.checks as JsonObject).claim_generator).toBe('MISSING');
    const noAssertions = run({ manifest_store: summaryReport({ assertions: [] }), hard_binding: dataHash, content_hash: hex() });
    expect(noAssertions.outcome).toBe('CLAIM-INCOMPLETE');
    expect((noAssertions.checks as JsonObject).assertions).toBe('MISSING');
  });

  it('derives attestation_id from the content: the same pair in hex or base64 has one id', () => {
    const a = c2paAttestationId({ hard_binding: dataHash, content_hash: hex() });
    const b = c2paAttestationId({ hard_binding: dataHash, content_hash: { alg: 'sha256', value: content.toString('base64') } });
    expect(a).toBe(b);
    expect(c2paAttestationId({ hard_binding: { ...dataHash, name: 'x' }, content_hash: hex() })).not.toBe(a);
    expect(run({ hard_binding: dataHash, content_hash: hex() }).attestation_id).toBe(a);
  });

  it('refuses malformed input with the field named', () => {
    const cases: Array<[unknown, string]> = [
      [{ content_hash: hex() }, 'manifest_store'],
      [{ hard_binding: dataHash }, 'content_hash'],
      [{ hard_binding: dataHash, content_hash: { alg: 'md5', value: 'ab' } }, 'content_hash.alg'],
      [{ hard_binding: dataHash, content_hash: { alg: 'sha256', value: 'abcd' } }, 'content_hash.value'],
      [{ hard_binding: 'x', content_hash: hex() }, 'hard_binding'],
    ];
    for (const [input, path] of cases) {
      const parsed = c2paVerifyInputSchema.safeParse(input);
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path.join('.')).toBe(path);
    }
  });

  it('takes the content hash as base64 in every form the docs name (standard or URL-safe, padded or not), for every algorithm', () => {
    for (const alg of ['sha256', 'sha384', 'sha512'] as const) {
      // Bytes whose base64 holds + and / (so the URL-safe form differs), of a length that pads.
      const digest = Buffer.alloc(createHash(alg).digest().length, 0xfb);
      const forms = [digest.toString('base64'), digest.toString('base64url'), digest.toString('base64').replace(/=+$/, ''), digest.toString('base64url').padEnd(digest.toString('base64').length, '=')];
      for (const value of forms) {
        const parsed = c2paVerifyInputSchema.safeParse({ manifest_store: summaryReport(), hard_binding: dataHash, content_hash: { alg, value } });
        expect(parsed.success, `${alg} ${value}`).toBe(true);
      }
      expect(c2paVerifyInputSchema.safeParse({ manifest_store: summaryReport(), hard_binding: dataHash, content_hash: { alg, value: digest.subarray(1).toString('base64url') } }).success).toBe(false);
    }
  });

  it('is deterministic (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), fc.nat(), (bytes, useHex, now) => {
        const value = useHex ? Buffer.from(bytes).toString('hex') : Buffer.from(bytes).toString('base64');
        const input = c2paVerifyInputSchema.parse({ manifest_store: summaryReport(), hard_binding: dataHash, content_hash: { alg: 'sha256', value } });
        expect(canonicalSha256(verifyC2paBinding(input, now))).toBe(canonicalSha256(verifyC2paBinding(structuredClone(input), now)));
      }),
    );
  });
});
