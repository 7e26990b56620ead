import type { MerkleLog } from '../../../signing/merkle-log.ts';
import { MERKLE_RULES_VERSION, type InclusionProof } from '../../../signing/rfc6962-merkle.ts';
import type { EventStore } from '../../../events/port.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import type { Keyring } from '../../../signing/keyring.ts';
import { seal } from '../../../signing/seal.ts';
import { readCorpus, readEntry, type CorpusAudit } from './corpus.ts';

/** The audit path of leaf `index` in the corpus tree of `size` leaves. */
function proofOf(tree: MerkleLog, index: number, size: number): InclusionProof {
  return { leafIndex: index, treeSize: size, auditPath: tree.inclusionProof(index, size).map((h) => Buffer.from(h).toString('hex')) };
}

/** The signed anchor: the corpus root at a tree size. No timestamp, so the same size signs the same. */
export function anchorRecord(treeSize: number, rootHash: string): JsonObject {
  return { kind: 'bureau.anchor', tree: MERKLE_RULES_VERSION, treeSize, rootHash };
}

export type AnchorView = {
  evidenceCore: JsonObject;
  sha256: string;
  ed25519Sig: string;
  keyId: string;
  publicKeyUrl: string;
  verifyUrl: string;
};

function presentAnchor(tree: MerkleLog, keyring: Keyring, baseUrl: string): AnchorView {
  const record = anchorRecord(tree.size, Buffer.from(tree.root()).toString('hex'));
  const s = seal(keyring, 'governance', record);
  return { evidenceCore: record, ...s, publicKeyUrl: `${baseUrl}/v1/governance/public-key`, verifyUrl: `${baseUrl}/v1/bureau/anchor/verify` };
}

function presentEntry(audit: CorpusAudit, proof: InclusionProof): JsonObject {
  return {
    leafIndex: audit.index,
    auditId: audit.auditId,
    evidenceCore: audit.record,
    sha256: audit.sha256,
    ed25519Sig: audit.ed25519Sig,
    keyId: audit.keyId,
    inclusionProof: { leafIndex: proof.leafIndex, treeSize: proof.treeSize, auditPath: proof.auditPath },
  };
}

export type CorpusPage = {
  total: number;
  page: number;
  perPage: number;
  anchor: AnchorView;
  items: JsonObject[];
};

/** A page of the corpus, newest first, each audit with its inclusion proof against the anchor. */
export async function corpusPage(store: EventStore, keyring: Keyring, baseUrl: string, page: number, perPage: number): Promise<CorpusPage> {
  const { entries, tree } = await readCorpus(store);
  // The tree as it is now: the items are read back after, while a new audit may join the corpus.
  const total = tree.size;
  const anchor = presentAnchor(tree, keyring, baseUrl);
  const newest = total - 1 - (page - 1) * perPage;
  const shown = entries.slice(Math.max(0, newest - perPage + 1), Math.max(0, newest + 1)).reverse();
  const proofs = shown.map((entry) => proofOf(tree, entry.index, total));
  const audits = await Promise.all(shown.map((entry) => readEntry(store, entry)));
  return { total, page, perPage, anchor, items: audits.map((audit, i) => presentEntry(audit, proofs[i]!)) };
}

export async function latestAudit(store: EventStore, keyring: Keyring, baseUrl: string): Promise<{ found: false } | { found: true; item: JsonObject; anchor: AnchorView }> {
  const { entries, tree } = await readCorpus(store);
  const last = entries[tree.size - 1];
  if (!last) return { found: false };
  const anchor = presentAnchor(tree, keyring, baseUrl);
  const proof = proofOf(tree, last.index, tree.size);
  return { found: true, item: presentEntry(await readEntry(store, last), proof), anchor };
}

export async function defectCounts(store: EventStore): Promise<{ audits: number; defects: Record<string, number> }> {
  const corpus = await readCorpus(store);
  const sorted = Object.entries(corpus.defects).sort(([a], [b]) => a.localeCompare(b));
  return { audits: corpus.entries.length, defects: Object.fromEntries(sorted) };
}
