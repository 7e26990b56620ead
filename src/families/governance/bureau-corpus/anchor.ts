import type { MerkleLog } from '../../../signing/merkle-log.ts';
import { MERKLE_RULES_VERSION, type InclusionProof } from '../../../signing/rfc6962-merkle.ts';
import type { EventStore } from '../../../events/port.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import type { Keyring } from '../../../signing/keyring.ts';
import { seal } from '../../../signing/seal.ts';
import { readCorpus, type CorpusEntry } from './corpus.ts';

/** The audit path of leaf `index` in the corpus tree as it is now. */
function proofOf(tree: MerkleLog, index: number): InclusionProof {
  return { leafIndex: index, treeSize: tree.size, auditPath: tree.inclusionProof(index).map((h) => Buffer.from(h).toString('hex')) };
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

function presentEntry(entry: CorpusEntry, proof: InclusionProof): JsonObject {
  return {
    leafIndex: entry.index,
    auditId: entry.auditId,
    evidenceCore: entry.record,
    sha256: entry.sha256,
    ed25519Sig: entry.ed25519Sig,
    keyId: entry.keyId,
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
  const total = tree.size;
  const newest = total - 1 - (page - 1) * perPage;
  const items: JsonObject[] = [];
  for (let i = newest; i >= 0 && i > newest - perPage; i--) items.push(presentEntry(entries[i]!, proofOf(tree, i)));
  return { total, page, perPage, anchor: presentAnchor(tree, keyring, baseUrl), items };
}

export async function latestAudit(store: EventStore, keyring: Keyring, baseUrl: string): Promise<{ found: false } | { found: true; item: JsonObject; anchor: AnchorView }> {
  const { entries, tree } = await readCorpus(store);
  if (tree.size === 0) return { found: false };
  const last = entries[tree.size - 1]!;
  return { found: true, item: presentEntry(last, proofOf(tree, last.index)), anchor: presentAnchor(tree, keyring, baseUrl) };
}

export async function defectCounts(store: EventStore): Promise<{ audits: number; defects: Record<string, number> }> {
  const corpus = await readCorpus(store);
  const sorted = Object.entries(corpus.defects).sort(([a], [b]) => a.localeCompare(b));
  return { audits: corpus.entries.length, defects: Object.fromEntries(sorted) };
}
