import { merkleTree, MERKLE_RULES_VERSION, type InclusionProof } from '../../../signing/rfc6962-merkle.ts';
import type { EventStore } from '../../../events/port.ts';
import { canonicalBytes, type JsonObject } from '../../../signing/rfc8785.ts';
import type { Keyring } from '../../../signing/keyring.ts';
import { seal } from '../../../signing/seal.ts';
import { readCorpus, type CorpusEntry, type CorpusState } from './corpus.ts';

type Tree = ReturnType<typeof merkleTree>;
const trees = new WeakMap<CorpusState, Tree>();

/** The tree over the corpus as it is now; rebuilt only when the corpus has grown. */
function treeOf(corpus: CorpusState): Tree {
  const cached = trees.get(corpus);
  if (cached && cached.size === corpus.entries.length) return cached;
  const tree = merkleTree(corpus.entries.map((e) => canonicalBytes(e.record)));
  trees.set(corpus, tree);
  return tree;
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

function presentAnchor(tree: Tree, keyring: Keyring, baseUrl: string): AnchorView {
  const record = anchorRecord(tree.size, tree.rootHex());
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
  const corpus = await readCorpus(store);
  const tree = treeOf(corpus);
  const total = tree.size;
  const newest = total - 1 - (page - 1) * perPage;
  const items: JsonObject[] = [];
  for (let i = newest; i >= 0 && i > newest - perPage; i--) items.push(presentEntry(corpus.entries[i]!, tree.proof(i)));
  return { total, page, perPage, anchor: presentAnchor(tree, keyring, baseUrl), items };
}

export async function latestAudit(store: EventStore, keyring: Keyring, baseUrl: string): Promise<{ found: false } | { found: true; item: JsonObject; anchor: AnchorView }> {
  const corpus = await readCorpus(store);
  const tree = treeOf(corpus);
  if (tree.size === 0) return { found: false };
  const last = corpus.entries[tree.size - 1]!;
  return { found: true, item: presentEntry(last, tree.proof(last.index)), anchor: presentAnchor(tree, keyring, baseUrl) };
}

export async function defectCounts(store: EventStore): Promise<{ audits: number; defects: Record<string, number> }> {
  const corpus = await readCorpus(store);
  const sorted = Object.entries(corpus.defects).sort(([a], [b]) => a.localeCompare(b));
  return { audits: corpus.entries.length, defects: Object.fromEntries(sorted) };
}
