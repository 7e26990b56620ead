import { canonicalBytes } from '../signing/rfc8785.ts';

/** What one leaf of the result log commits to: a signed result, by its digest and signing key. */
export type ResultLeaf = {
  key_family: string;
  key_id: string;
  sha256: string;
};

export const RESULT_LEAF_VERSION = 'result-leaf/v1';

/**
 * The leaf's bytes: the RFC 8785 form of {key_family, key_id, sha256}. The tree hashes them as
 * RFC 6962 leaves (SHA-256 of 0x00 || bytes).
 */
export function resultLeafBytes(leaf: ResultLeaf): Buffer {
  return canonicalBytes({ key_family: leaf.key_family, key_id: leaf.key_id, sha256: leaf.sha256 });
}
