import { leafHashOfText } from '../signing/rfc6962-merkle.ts';

/** What one leaf of the result log commits to: a signed result, by its digest and signing key. */
export type ResultLeaf = {
  key_family: string;
  key_id: string;
  sha256: string;
};

export const RESULT_LEAF_VERSION = 'result-leaf/v1';

/**
 * The leaf's text: the RFC 8785 form of {key_family, key_id, sha256}. Three string members
 * written in their sorted order: RFC 8785 writes strings exactly as JSON.stringify does, so the
 * native stringify is the canonical form here (result-leaf.test.ts holds it to canonicalBytes).
 */
const resultLeafText = (leaf: ResultLeaf): string => JSON.stringify({ key_family: String(leaf.key_family), key_id: String(leaf.key_id), sha256: String(leaf.sha256) });

/** The leaf's bytes, as an entry bundle serves them; the tree hashes them as RFC 6962 leaves (SHA-256 of 0x00 || bytes). */
export function resultLeafBytes(leaf: ResultLeaf): Buffer {
  return Buffer.from(resultLeafText(leaf), 'utf8');
}

/** The leaf's RFC 6962 leaf hash, taken from its text: what the service's tree and the audit's rebuilt tree hold. */
export function resultLeafHash(leaf: ResultLeaf): Uint8Array {
  return leafHashOfText(resultLeafText(leaf));
}
