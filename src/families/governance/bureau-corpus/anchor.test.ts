import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../../events/memory-store.ts';
import { createKeyring } from '../../../signing/keyring.ts';
import { merkleTree, rootFromInclusionProof, type InclusionProof } from '../../../signing/rfc6962-merkle.ts';
import { canonicalBytes, type JsonObject } from '../../../signing/rfc8785.ts';
import { auditStreamName, GOVERNANCE_EVENT_TYPES } from '../events.ts';
import { corpusPage, latestAudit } from './anchor.ts';

const keyring = createKeyring('corpus-test-secret-0123456789abcdef');

function auditEvent(n: number) {
  const record: JsonObject = { kind: 'bureau.audit', auditId: `audit-${n}`, defects: n % 3 === 0 ? ['X402-1'] : [], nested: { n, text: 'é'.repeat(n % 5) } };
  return { id: randomUUID(), type: GOVERNANCE_EVENT_TYPES.bureauAuditRecorded, data: { auditId: `audit-${n}`, paymentId: `payment-${n}`, record, sha256: '0'.repeat(64), ed25519Sig: '0'.repeat(128), keyId: '0'.repeat(16) } };
}

describe('the bureau corpus tree', () => {
  it('grows with the corpus and stays the tree of every record: each proof of each page leads to the signed root', async () => {
    const store = createMemoryEventStore();
    const records: JsonObject[] = [];
    for (const batch of [1, 2, 5, 9, 16]) {
      for (let i = 0; i < batch; i++) {
        const event = auditEvent(records.length);
        records.push(event.data.record);
        await store.appendToStream(auditStreamName(event.data.auditId), [event]);
        // Unrelated events between audits are passed over.
        await store.appendToStream(`other-${randomUUID()}`, [{ id: randomUUID(), type: 'Other', data: {} }]);
      }
      const expectedRoot = merkleTree(records.map((r) => canonicalBytes(r))).rootHex();
      for (let page = 1; (page - 1) * 4 < records.length; page++) {
        const { total, anchor, items } = await corpusPage(store, keyring, 'http://test', page, 4);
        expect(total).toBe(records.length);
        expect(anchor.evidenceCore).toMatchObject({ treeSize: records.length, rootHash: expectedRoot });
        for (const item of items) {
          const proof = item['inclusionProof'] as unknown as InclusionProof;
          expect(rootFromInclusionProof(canonicalBytes(item['evidenceCore'] as JsonObject), proof)).toBe(expectedRoot);
          expect(item['evidenceCore']).toEqual(records[proof.leafIndex]);
        }
      }
      const latest = await latestAudit(store, keyring, 'http://test');
      expect(latest.found && latest.item['evidenceCore']).toEqual(records.at(-1));
    }
  });
});
