import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import {
  SUPPORTED_DIGEST_ALGORITHMS,
  bytesFromNumberArray,
  decodeBase64,
  decodeDigest,
  isSupportedAlgorithm,
  normaliseAlgorithmName,
  type DigestAlgorithm,
} from './digest-encoding.ts';
import type { C2paVerifyInput } from './input.ts';
import { isJsonObject } from '../../../kernel/json.ts';

/**
 * C2PA provenance check against a caller-supplied content hash, offline: the manifest's hard
 * binding (c2pa.hash.data, or c2pa.hash.bmff with a whole-file hash) must name a supported
 * algorithm and carry the very hash the caller computed. The COSE claim signature and the
 * certificate chain need the asset's JUMBF bytes and trust lists, so they are reported as not
 * verified rather than guessed.
 */
export const C2PA_BINDING_RULESET = { id: 'c2pa-binding', version: '1' } as const;

const HARD_BINDING_LABEL = /^c2pa\.hash\.(?:data|bmff(?:\.v[23])?)(?:__\d+)?$/;

export type C2paOutcome =
  | 'BINDING-MATCH'
  | 'CLAIM-INCOMPLETE'
  | 'BINDING-MISMATCH'
  | 'ALGORITHM-MISMATCH'
  | 'UNSUPPORTED-ALGORITHM'
  | 'UNSUPPORTED-BINDING'
  | 'MALFORMED-BINDING'
  | 'BINDING-CONFLICT'
  | 'NO-HARD-BINDING'
  | 'NO-ACTIVE-MANIFEST';

type ListStatus = 'LISTED' | 'MISSING' | 'NOT-PROVIDED';

const nonEmptyString = (v: JsonValue | undefined): v is string => typeof v === 'string' && v.length > 0;

/** Content-derived, so verifying the same pair again names the same attestation. */
export function c2paAttestationId(input: C2paVerifyInput): string {
  const decoded = decodeDigest(input.content_hash.value, input.content_hash.alg)!;
  return canonicalSha256({
    ruleset: { ...C2PA_BINDING_RULESET },
    purpose: 'attestation_id',
    content_hash: { alg: input.content_hash.alg, hex: decoded.bytes.toString('hex') },
    manifest_store: (input.manifest_store ?? null) as JsonValue,
    hard_binding: (input.hard_binding ?? null) as JsonValue,
  });
}

interface ActiveManifest {
  label: string | null;
  manifest: JsonObject;
}

/** The active manifest: named by active_manifest, or the only one; a bare manifest counts too. */
function activeManifest(store: JsonObject): ActiveManifest | { missing: string } {
  const { manifests, active_manifest: active } = store;
  if (manifests === undefined) {
    if (store.assertions !== undefined || store.claim_generator !== undefined || store.claim !== undefined) return { label: null, manifest: store };
    return { missing: 'manifest_store.manifests' };
  }
  const entries: Array<[string | null, JsonValue]> = Array.isArray(manifests)
    ? manifests.map((m) => [isJsonObject(m) && typeof m.label === 'string' ? m.label : null, m])
    : isJsonObject(manifests)
      ? Object.entries(manifests)
      : [];
  if (typeof active === 'string') {
    const found = entries.find(([label]) => label === active);
    return found && isJsonObject(found[1]) ? { label: active, manifest: found[1] } : { missing: 'manifest_store.manifests[active_manifest]' };
  }
  const only = entries.length === 1 ? entries[0]! : undefined;
  return only && isJsonObject(only[1]) ? { label: only[0], manifest: only[1] } : { missing: 'manifest_store.active_manifest' };
}

/** Assertions as [label, data] in listed order, from each form the c2patool reports use. */
function assertionsOf(manifest: JsonObject): Array<[string, JsonValue]> {
  const listed: Array<[string, JsonValue]> = [];
  const { assertions, assertion_store: store, claim } = manifest;
  if (Array.isArray(assertions)) {
    for (const a of assertions) if (isJsonObject(a) && nonEmptyString(a.label)) listed.push([a.label, a.data ?? null]);
  } else if (isJsonObject(assertions)) {
    for (const entry of Object.entries(assertions)) listed.push(entry);
  }
  if (isJsonObject(store)) for (const entry of Object.entries(store)) listed.push(entry);
  // The detailed report's claim lists hashed URIs "self#jumbf=c2pa.assertions/<label>".
  const claimed = isJsonObject(claim) ? (Array.isArray(claim.assertions) ? claim.assertions : Array.isArray(claim.created_assertions) ? claim.created_assertions : []) : [];
  for (const ref of claimed) {
    if (isJsonObject(ref) && typeof ref.url === 'string') listed.push([ref.url.slice(ref.url.lastIndexOf('/') + 1), null]);
  }
  return listed;
}

function claimGeneratorOf(manifest: JsonObject): string | null {
  const claim = isJsonObject(manifest.claim) ? manifest.claim : {};
  for (const source of [manifest, claim]) {
    if (nonEmptyString(source.claim_generator)) return source.claim_generator;
    const info = source.claim_generator_info;
    if (Array.isArray(info)) {
      const names = info.filter(isJsonObject).filter((i) => nonEmptyString(i.name)).map((i) => (nonEmptyString(i.version) ? `${String(i.name)}/${i.version}` : String(i.name)));
      if (names.length > 0) return names.join(' ');
    }
  }
  return null;
}

/** `{label, data}` or the data alone (then labelled c2pa.hash.data). */
function suppliedBinding(raw: JsonObject): { label: string; data: JsonValue } {
  if (isJsonObject(raw.data)) return { label: nonEmptyString(raw.label) ? raw.label : 'c2pa.hash.data', data: raw.data };
  return { label: nonEmptyString(raw.label) ? raw.label : 'c2pa.hash.data', data: raw };
}

function hashBytesOf(hash: JsonValue | undefined): Buffer | undefined {
  if (typeof hash === 'string') return decodeBase64(hash);
  if (Array.isArray(hash)) return bytesFromNumberArray(hash);
  return undefined;
}

function signatureReport(manifest: JsonObject | null): JsonObject {
  const info = manifest && isJsonObject(manifest.signature_info) ? manifest.signature_info : {};
  const reported = Object.fromEntries(['alg', 'issuer', 'cert_serial_number', 'time'].filter((k) => typeof info[k] === 'string').map((k) => [k, info[k]!]));
  return {
    claim_signature: 'NOT-VERIFIED',
    certificate_chain: 'NOT-VERIFIED',
    reason: 'offline check: the COSE signature and certificate chain need the asset JUMBF bytes and trust lists, which this operation does not receive',
    reported_by_manifest: reported,
  };
}

export function verifyC2paBinding(input: C2paVerifyInput, verifiedAt: number): JsonObject {
  const supplied = decodeDigest(input.content_hash.value, input.content_hash.alg)!;
  const base = {
    kind: 'c2pa.verification',
    ruleset: { ...C2PA_BINDING_RULESET },
    attestation_id: c2paAttestationId(input),
    content_hash: { alg: input.content_hash.alg, hex: supplied.bytes.toString('hex'), supplied_encoding: supplied.encoding },
  };
  const missing: string[] = [];
  let manifest: ActiveManifest | null = null;
  if (input.manifest_store) {
    const found = activeManifest(input.manifest_store as JsonObject);
    if ('missing' in found) missing.push(found.missing);
    else manifest = found;
  }
  const listed = manifest ? assertionsOf(manifest.manifest) : [];
  const generator = manifest ? claimGeneratorOf(manifest.manifest) : null;
  const labels = [...new Set(listed.map(([label]) => label))];
  const claimStatus = (present: boolean): ListStatus => (!manifest ? 'NOT-PROVIDED' : present ? 'LISTED' : 'MISSING');
  const manifestReport: JsonValue = input.manifest_store
    ? { label: manifest?.label ?? null, claim_generator: generator, assertions: labels, manifest_store_sha256: canonicalSha256(input.manifest_store) }
    : null;

  const fromManifest = listed.find(([label, data]) => HARD_BINDING_LABEL.test(label) && isJsonObject(data));
  const fromCaller = input.hard_binding ? suppliedBinding(input.hard_binding as JsonObject) : undefined;
  const binding = fromManifest ? { label: fromManifest[0], data: fromManifest[1] as JsonObject } : fromCaller && isJsonObject(fromCaller.data) ? { label: fromCaller.label, data: fromCaller.data } : undefined;

  const claimAlg = manifest && isJsonObject(manifest.manifest.claim) && typeof manifest.manifest.claim.alg === 'string' ? manifest.manifest.claim.alg : undefined;
  const rawAlg = binding && typeof binding.data.alg === 'string' ? binding.data.alg : (claimAlg ?? (manifest && typeof manifest.manifest.alg === 'string' ? manifest.manifest.alg : undefined));
  const alg = rawAlg === undefined ? null : normaliseAlgorithmName(rawAlg);
  const hashBytes = binding ? hashBytesOf(binding.data.hash) : undefined;
  const bindingReport: JsonValue = binding
    ? { label: binding.label, source: fromManifest ? 'manifest_store' : 'hard_binding', alg, hash_hex: hashBytes?.toString('hex') ?? null, exclusions: binding.data.exclusions ?? null }
    : null;

  const checks = {
    algorithm_supported: null as boolean | null,
    algorithm_matches: null as boolean | null,
    hash_matches: null as boolean | null,
    claim_generator: claimStatus(generator !== null),
    assertions: claimStatus(labels.length > 0),
  };
  const result = (outcome: C2paOutcome, detail: string): JsonObject => ({
    ...base,
    outcome,
    detail,
    missing,
    binding: bindingReport,
    manifest: manifestReport,
    checks,
    signature: signatureReport(manifest?.manifest ?? null),
    // The manifest report, the binding and the content hash are the caller's; the service compared them.
    evidence_source: 'caller-supplied',
    verifiedAt,
  });

  if (input.manifest_store && !manifest) return result('NO-ACTIVE-MANIFEST', 'the manifest store names no active manifest that it contains');
  if (!binding) {
    missing.push('hard_binding');
    return result('NO-HARD-BINDING', 'no c2pa.hash.data or c2pa.hash.bmff assertion was found or supplied');
  }
  if (fromManifest && fromCaller && canonicalSha256(fromCaller.data) !== canonicalSha256(fromManifest[1])) {
    return result('BINDING-CONFLICT', 'the supplied hard_binding differs from the one in the manifest store');
  }
  if (binding.data.hash === undefined && binding.data.merkle !== undefined) {
    return result('UNSUPPORTED-BINDING', 'a Merkle-tree (fragmented) BMFF binding hashes chunks, not the whole content');
  }
  if (alg === null) missing.push('hard_binding.alg');
  if (binding.data.hash === undefined) missing.push('hard_binding.hash');
  if (missing.length > 0) return result('MALFORMED-BINDING', 'the hard binding lacks its algorithm or hash');
  checks.algorithm_supported = isSupportedAlgorithm(alg!);
  if (!checks.algorithm_supported) return result('UNSUPPORTED-ALGORITHM', `binding algorithm ${alg} is not one of ${Object.keys(SUPPORTED_DIGEST_ALGORITHMS).join(', ')}`);
  const bindingAlg = alg as DigestAlgorithm;
  if (!hashBytes || hashBytes.length !== SUPPORTED_DIGEST_ALGORITHMS[bindingAlg]) {
    return result('MALFORMED-BINDING', `the binding hash is not a ${bindingAlg} digest in base64`);
  }
  checks.algorithm_matches = bindingAlg === input.content_hash.alg;
  if (!checks.algorithm_matches) return result('ALGORITHM-MISMATCH', `the binding uses ${bindingAlg}, the supplied content hash ${input.content_hash.alg}`);
  checks.hash_matches = hashBytes.equals(supplied.bytes);
  if (!checks.hash_matches) return result('BINDING-MISMATCH', 'the binding hash differs from the supplied content hash');
  if (manifest && (generator === null || labels.length === 0)) {
    return result('CLAIM-INCOMPLETE', 'the binding matches, but the claim lists no claim generator or no assertions');
  }
  return result('BINDING-MATCH', 'the hard binding carries the supplied content hash; signature and certificate chain not verified (offline)');
}
