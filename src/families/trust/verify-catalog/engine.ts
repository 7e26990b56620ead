import { canonicalText, type JsonObject, type JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { decodeBinary, ed25519KeyOf, EVM_ADDRESS, verifyBySigner } from '../../../kernel/offline-signatures.ts';
import { isWrittenOutUrl } from '../../../kernel/written-url.ts';

/** Version 2 (2026-11-27): source_url counts only as an https URL written out in full, not by its prefix. */
export const VERIFY_CATALOG_RULESET = { id: 'verify-catalog-trust', version: '2' } as const;
export const VERIFY_CATALOG_KIND = 'verify-catalog-entry';
/** The three conditions give the base; each reference to this service adds a step, up to 3. */
const TRUST_BASE = 0.7;
const TRUST_PER_REFERENCE = 0.1;
const MAX_COUNTED_REFERENCES = 3;

export interface CatalogRegistration {
  claim: JsonObject;
  claim_sha256?: string;
  signature?: string;
  /** Ed25519 key (hex, base64 or did:key) or EVM address of the signer. */
  public_key?: string;
  source_url?: string;
}

export type IntegrityStatus = 'VERIFIED' | 'MISMATCH' | 'NOT-PROVIDED';
export type SignatureStatus = 'VERIFIED' | 'FAILED' | 'WELL-FORMED' | 'MALFORMED' | 'NOT-PROVIDED';
export type SourceStatus = 'HTTPS-URL-SUPPLIED' | 'NOT-HTTPS' | 'NOT-PROVIDED';

/** A signature is well formed when it is 64 bytes (Ed25519) or 65 bytes (EIP-191) of hex or base64. */
function signatureShape(signature: string): 'ed25519' | 'eip191' | undefined {
  if (decodeBinary(signature, 64)) return 'ed25519';
  if (decodeBinary(signature, 65)) return 'eip191';
  return undefined;
}

function assessSignature(reg: CatalogRegistration): { status: SignatureStatus; detail: string } {
  if (!reg.signature) return { status: 'NOT-PROVIDED', detail: 'no signature supplied' };
  const shape = signatureShape(reg.signature);
  if (!shape) return { status: 'MALFORMED', detail: 'signature is neither 64 bytes (Ed25519) nor 65 bytes (EIP-191) of hex or base64' };
  if (!reg.public_key) return { status: 'WELL-FORMED', detail: `well-formed ${shape} signature; no public_key supplied to verify it` };
  if (!EVM_ADDRESS.test(reg.public_key) && !ed25519KeyOf(reg.public_key)) {
    return { status: 'FAILED', detail: 'public_key is neither an Ed25519 key (hex, base64, did:key) nor an EVM address' };
  }
  // The signed output of a service is its canonical record: the signature covers its RFC 8785 text.
  const check = verifyBySigner(reg.public_key, canonicalText(reg.claim), reg.signature);
  return check.ok ? { status: 'VERIFIED', detail: 'signature verifies over the canonical claim' } : { status: 'FAILED', detail: check.reason };
}

const SOURCE_URL_RULE = 'source_url is not an https URL written out in full (https://, a host, no white space, control or invisible character)';

function assessSource(url: string | undefined): { status: SourceStatus; url?: string } {
  if (!url) return { status: 'NOT-PROVIDED' };
  // Only the form of the URL is checked: the service fetches nothing, so nothing is attested about it.
  return isWrittenOutUrl(url, ['https:']) ? { status: 'HTTPS-URL-SUPPLIED', url } : { status: 'NOT-HTTPS', url };
}

/** Occurrences of this service's host in every string (keys included) of the claim. */
export function countReferences(value: JsonValue, host: string): number {
  if (host === '') return 0;
  const needle = host.toLowerCase();
  const inText = (text: string) => text.toLowerCase().split(needle).length - 1;
  if (typeof value === 'string') return inText(value);
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + countReferences(v, host), 0);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).reduce<number>((n, [k, v]) => n + inText(k) + countReferences(v, host), 0);
  }
  return 0;
}

/** Stable per entry: the same claim, signature, key and source always land in the same entry. */
export function catalogEntryId(reg: CatalogRegistration): string {
  const core = { claim_sha256: canonicalSha256(reg.claim), signature: reg.signature ?? '', public_key: reg.public_key ?? '', source_url: reg.source_url ?? '' };
  return canonicalSha256(core).slice(0, 32);
}

/**
 * The evidenceCore of a catalog entry. The trust index exists only when integrity and the
 * signature are verified and an https source URL is supplied (the spec's "URL-attested"; the
 * service fetches nothing, so the record calls it what it is); otherwise it is null with the
 * reasons. Key, signature and URL are the caller's: the record says so, and says what it did not check.
 */
export function assessRegistration(reg: CatalogRegistration, serviceHost: string, now: number): JsonObject {
  const recomputed = canonicalSha256(reg.claim);
  const integrity: IntegrityStatus = reg.claim_sha256 === undefined ? 'NOT-PROVIDED' : reg.claim_sha256.toLowerCase() === recomputed ? 'VERIFIED' : 'MISMATCH';
  const signature = assessSignature(reg);
  const source = assessSource(reg.source_url);
  const references = countReferences(reg.claim, serviceHost);
  const deferred: string[] = [];
  if (integrity !== 'VERIFIED') deferred.push(`integrity ${integrity}: ${integrity === 'MISMATCH' ? 'claim_sha256 differs from the recomputed digest' : 'no claim_sha256 supplied'}`);
  if (signature.status !== 'VERIFIED') deferred.push(`signature ${signature.status}: ${signature.detail}`);
  if (source.status !== 'HTTPS-URL-SUPPLIED') deferred.push(`source ${source.status}: ${source.status === 'NOT-HTTPS' ? SOURCE_URL_RULE : 'no source_url supplied'}`);
  const trustIndex = deferred.length === 0 ? Math.min(1, TRUST_BASE + TRUST_PER_REFERENCE * Math.min(references, MAX_COUNTED_REFERENCES)) : null;
  return {
    kind: VERIFY_CATALOG_KIND,
    entryId: catalogEntryId(reg),
    ruleset: { ...VERIFY_CATALOG_RULESET },
    claim: reg.claim,
    claim_sha256: recomputed,
    ...(reg.claim_sha256 === undefined ? {} : { supplied_claim_sha256: reg.claim_sha256 }),
    integrity,
    signature: { status: signature.status, detail: signature.detail, ...(reg.signature ? { value: reg.signature } : {}), ...(reg.public_key ? { public_key: reg.public_key } : {}) },
    source,
    service_host: serviceHost,
    service_references: references,
    trust_index: trustIndex === null ? null : Math.round(trustIndex * 1e6) / 1e6,
    deferred_reasons: deferred,
    evidence_source: 'caller-supplied',
    not_performed: [
      { check: 'fetch source_url', reason: 'the service makes no network calls: the URL is carried as supplied, not shown to publish this output' },
      { check: 'key ownership', reason: 'public_key is the caller\'s: a valid signature shows its holder signed, not who the holder is' },
    ],
    registeredAt: now,
  };
}
