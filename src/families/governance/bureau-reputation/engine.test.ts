import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assessReputation, type Observation } from './engine.ts';
import { canonicalBytes, type JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';

const keyPair = () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { hex: publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex'), privateKey };
};
const bureau = keyPair();
const other = keyPair();
const bureauKey = { publicKeyHex: bureau.hex, keyId: 'bureau-g1', generation: 1, validFrom: 0, validUntil: null };
const URL = 'https://api.example.com/v1/data';

function observe(record: JsonObject, by = bureau): Observation {
  const bytes = canonicalBytes(record);
  return { evidenceCore: record, sha256: sha256Hex(bytes), ed25519Sig: sign(null, bytes, by.privateKey).toString('hex'), ...(by === bureau ? {} : { publicKey: by.hex }) };
}
const audit = (at: number, outcome: string, defects: string[] = [], url = URL) => observe({ kind: 'bureau.audit', endpoint: { url, method: 'GET' }, auditedAt: at, outcome, defects });
const assess = (observations: Observation[], min?: number) =>
  assessReputation({ endpoint: { url: URL }, observations, ...(min ? { min_observations: min } : {}) }, { now: 2_000, bureauKeys: [bureauKey] });

describe('bureau reputation', () => {
  it('withholds the rating as INSUFFICIENT-DATA under the minimum', () => {
    const r = assess([audit(1, 'CONFORMANT'), audit(2, 'CONFORMANT')]);
    expect(r).toMatchObject({ outcome: 'INSUFFICIENT-DATA', observations: { accepted: 2 } });
    expect(r.passRate).toBeUndefined();
  });

  it('rates pass rate, trend and open defects, in time order whatever the input order', () => {
    const obs = [audit(4, 'CONFORMANT'), audit(1, 'NON-CONFORMANT', ['X402-CCH-001']), audit(3, 'CONFORMANT'), audit(2, 'NON-CONFORMANT', ['X402-CCH-001'])];
    const r = assess(obs);
    expect(r).toMatchObject({ passRate: 0.5, trend: { earlierPassRate: 0, laterPassRate: 1, direction: 'improving' }, openDefects: [], outcome: 'POOR', firstObservedAt: 1, lastObservedAt: 4 });
    // The rating does not depend on the input order (observations.verified lists input indices).
    const { observations: _listed, ...rating } = r;
    expect(assess([...obs].reverse())).toMatchObject(rating);
    const declining = assess([audit(1, 'CONFORMANT'), audit(2, 'CONFORMANT'), audit(3, 'NON-CONFORMANT', ['X402-COR-001']), audit(4, 'NON-CONFORMANT', ['X402-COR-001'])]);
    expect(declining).toMatchObject({ trend: { direction: 'declining' }, openDefects: ['X402-COR-001'], outcome: 'POOR' });
  });

  it("verifies ours with the bureau key and others' with the supplied key; sets aside forgeries, other endpoints and repeats", () => {
    const forged = { ...audit(5, 'CONFORMANT'), evidenceCore: { ...audit(5, 'CONFORMANT').evidenceCore, outcome: 'CONFORMANT', auditedAt: 6 } };
    const unsignedByUs = { ...observe({ kind: 'bureau.audit', endpoint: { url: URL }, auditedAt: 7, outcome: 'CONFORMANT', defects: [] }, other), publicKey: undefined };
    const a = audit(1, 'CONFORMANT');
    const r = assess([a, a, audit(2, 'CONFORMANT', [], 'https://elsewhere'), forged, unsignedByUs, observe({ kind: 'bureau.receipt-check', resourceUrl: URL, checkedAt: 3, outcome: 'CONFORMANT', defects: [] }, other)], 1);
    expect(r.observations).toMatchObject({ supplied: 6, accepted: 1, foreign: 1 });
    expect((r.observations as { rejected: Array<{ index: number }> }).rejected.map((x) => x.index)).toEqual([1, 2, 3, 4]);
    expect((r.observations as { verified: JsonObject[] }).verified).toEqual([
      { index: 0, sha256: a.sha256, signedBy: 'bureau', publicKey: bureau.hex, keyId: 'bureau-g1', key_generation: 1, scored: true },
      { index: 5, sha256: expect.any(String), signedBy: 'other-key', publicKey: other.hex, scored: false },
    ]);
    expect(r).toMatchObject({ passRate: 1, outcome: 'GOOD', evidence_source: 'caller-supplied', observationsSha256: [a.sha256] });
  });
});

describe('bureau reputation: only the bureau\'s own signatures are scored', () => {
  it('conformant records signed by another key, sent with that key, are counted and listed but never scored', () => {
    const forged = [1, 2, 3].map((at) => observe({ kind: 'bureau.audit', endpoint: { url: URL, method: 'GET' }, outcome: 'CONFORMANT', defects: [], auditedAt: at }, other));
    const r = assess(forged);
    expect(r).toMatchObject({ outcome: 'INSUFFICIENT-DATA', observations: { supplied: 3, accepted: 0, foreign: 3, rejected: [] }, observationsSha256: [] });
    expect(r.reason).toBe('0 usable bureau-signed observations (3 signed by other keys counted, not scored), at least 3 needed: pass rate and trend withheld');
    expect(r.passRate).toBeUndefined();
    // Beside poor bureau-signed observations, they do not lift the rating.
    const poor = [4, 5, 6].map((at) => audit(at, 'NON-CONFORMANT', ['X402-CCH-001']));
    expect(assess([...forged, ...poor])).toMatchObject({ outcome: 'POOR', passRate: 0, observations: { accepted: 3, foreign: 3 } });
  });

  it('a publicKey that is the bureau\'s own is the bureau\'s; a retired generation counts for records of its time only', () => {
    const withOwnKey = { ...audit(1, 'CONFORMANT'), publicKey: bureau.hex.toUpperCase() };
    expect(assess([withOwnKey], 1)).toMatchObject({ outcome: 'GOOD', observations: { accepted: 1, foreign: 0, verified: [{ signedBy: 'bureau', key_generation: 1 }] } });

    const next = keyPair();
    const keys = [
      { ...bureauKey, validUntil: 100 },
      { publicKeyHex: next.hex, keyId: 'bureau-g2', generation: 2, validFrom: 100, validUntil: null },
    ];
    const old = audit(50, 'CONFORMANT');
    const current = observe({ kind: 'bureau.audit', endpoint: { url: URL, method: 'GET' }, auditedAt: 150, outcome: 'CONFORMANT', defects: [] }, next);
    const backdated = audit(150, 'CONFORMANT');
    const r = assessReputation({ endpoint: { url: URL }, observations: [old, current, backdated], min_observations: 1 }, { now: 2_000, bureauKeys: keys });
    expect((r.observations as { verified: JsonObject[] }).verified.map((v) => [v.index, v.keyId])).toEqual([[0, 'bureau-g1'], [1, 'bureau-g2']]);
    expect(r.observations).toMatchObject({ accepted: 2, rejected: [{ index: 2, reason: 'signature: made with the governance key of generation 1, but the record is stamped 150: not the key of its time' }] });
  });
});
