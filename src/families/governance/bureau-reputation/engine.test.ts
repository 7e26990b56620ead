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
const URL = 'https://api.example.com/v1/data';

function observe(record: JsonObject, by = bureau): Observation {
  const bytes = canonicalBytes(record);
  return { evidenceCore: record, sha256: sha256Hex(bytes), ed25519Sig: sign(null, bytes, by.privateKey).toString('hex'), ...(by === bureau ? {} : { publicKey: by.hex }) };
}
const audit = (at: number, outcome: string, defects: string[] = [], url = URL) => observe({ kind: 'bureau.audit', endpoint: { url, method: 'GET' }, auditedAt: at, outcome, defects });
const assess = (observations: Observation[], min?: number) =>
  assessReputation({ endpoint: { url: URL }, observations, ...(min ? { min_observations: min } : {}) }, { now: 2_000, bureauPublicKey: bureau.hex });

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
    expect(assess([...obs].reverse())).toEqual(r);
    const declining = assess([audit(1, 'CONFORMANT'), audit(2, 'CONFORMANT'), audit(3, 'NON-CONFORMANT', ['X402-COR-001']), audit(4, 'NON-CONFORMANT', ['X402-COR-001'])]);
    expect(declining).toMatchObject({ trend: { direction: 'declining' }, openDefects: ['X402-COR-001'], outcome: 'POOR' });
  });

  it("verifies ours with the bureau key and others' with the supplied key; sets aside forgeries, other endpoints and repeats", () => {
    const forged = { ...audit(5, 'CONFORMANT'), evidenceCore: { ...audit(5, 'CONFORMANT').evidenceCore, outcome: 'CONFORMANT', auditedAt: 6 } };
    const unsignedByUs = { ...observe({ kind: 'bureau.audit', endpoint: { url: URL }, auditedAt: 7, outcome: 'CONFORMANT', defects: [] }, other), publicKey: undefined };
    const a = audit(1, 'CONFORMANT');
    const r = assess([a, a, audit(2, 'CONFORMANT', [], 'https://elsewhere'), forged, unsignedByUs, observe({ kind: 'bureau.receipt-check', resourceUrl: URL, checkedAt: 3, outcome: 'CONFORMANT', defects: [] }, other)], 1);
    expect(r.observations).toMatchObject({ supplied: 6, accepted: 2 });
    expect((r.observations as { rejected: Array<{ index: number }> }).rejected.map((x) => x.index)).toEqual([1, 2, 3, 4]);
    expect(r).toMatchObject({ passRate: 1, outcome: 'GOOD' });
  });
});
