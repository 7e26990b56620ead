import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

/**
 * Evidence query: binds a set of sealed entries into one receipt. The receipt is a function of
 * the set alone (sorted, deduplicated ids; no clock), so the same set in any order, with any
 * duplicates, gives the same canonical bytes and therefore the same digest and signature.
 */
export const EVIDENCE_RECEIPT_RULESET = { id: 'evidence-receipt', version: '1' } as const;

/**
 * Merkle tree over the entries' SHA-256 digests in entryId order. Leaves and inner nodes are
 * domain-separated (0x00 / 0x01 prefix) so a leaf can never pose as a node, and an odd node is
 * promoted unchanged rather than paired with itself (duplicating it would let two different
 * sets share a root).
 */
export const MERKLE_SCHEME = 'sha256, leaf = H(0x00 || entry sha256), node = H(0x01 || left || right), odd node promoted';

export type ReceiptOutcome = 'BOUND' | 'PARTIAL' | 'NOT-FOUND';

function h(prefix: number, ...parts: Buffer[]): Buffer {
  const hash = createHash('sha256');
  hash.update(Buffer.from([prefix]));
  for (const p of parts) hash.update(p);
  return hash.digest();
}

export function merkleRoot(leafDigestsHex: readonly string[]): string | null {
  if (leafDigestsHex.length === 0) return null;
  let level = leafDigestsHex.map((d) => h(0x00, Buffer.from(d, 'hex')));
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1];
      next.push(right ? h(0x01, left, right) : left);
    }
    level = next;
  }
  return level[0]!.toString('hex');
}

/** Sorted by code unit order, which is the order of RFC 8785 too: no locale can change it. */
export function normaliseEntryIds(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * @param requested the ids as the caller sent them (any order, duplicates allowed)
 * @param lookup the sealed record stored for an id, or undefined when none is
 */
export function bindEvidenceReceipt(requested: readonly string[], lookup: (entryId: string) => JsonObject | undefined): JsonObject {
  const ids = normaliseEntryIds(requested);
  const entries: JsonValue[] = [];
  const notFound: string[] = [];
  const digests: string[] = [];
  for (const entryId of ids) {
    const sealed = lookup(entryId);
    if (!sealed) {
      notFound.push(entryId);
      continue;
    }
    const sha256 = canonicalSha256(sealed);
    digests.push(sha256);
    entries.push({ entryId, sha256 });
  }
  const outcome: ReceiptOutcome = notFound.length === 0 ? 'BOUND' : entries.length === 0 ? 'NOT-FOUND' : 'PARTIAL';
  return {
    kind: 'evidence.receipt',
    ruleset: { ...EVIDENCE_RECEIPT_RULESET },
    merkle_scheme: MERKLE_SCHEME,
    outcome,
    requested_count: ids.length,
    found_count: entries.length,
    entries,
    not_found: notFound,
    merkle_root: merkleRoot(digests),
  };
}

