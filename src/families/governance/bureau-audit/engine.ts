import { canonicalSha256 } from '../../../signing/hash.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { AUDIT_CHECKS, CONFORMANCE_RULESET, CONFORMANCE_STANDARD_VERSION } from '../conformance-standard/standard.ts';
import { checkSignedRecord, signedRecordOf } from '../../../kernel/signed-record.ts';
import { absent, checkResults, fail, outcomeOf, pass, scoreOf, type Verdict } from '../conformance-standard/verdicts.ts';
import { decodeUtf8 } from '../../../kernel/rfc3629.ts';
import { shortened, sliceWholeCharacters } from '../../../kernel/whole-characters.ts';
import { isJsonObject } from '../../../kernel/json.ts';

export interface HttpCapture {
  status: number;
  headers: Record<string, string | string[]>;
  body?: JsonValue | undefined;
}

export interface AuditTranscript {
  endpoint: { url: string; method: string };
  challenge: HttpCapture;
  paid?: HttpCapture | undefined;
  /** Ed25519 public key (hex) of the issuer's result signatures. */
  publicKey?: string | undefined;
  /** Member of the paid body that holds the signed record, when not the conventional one. */
  signedMember?: string | undefined;
}


const quote = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return shortened(text, 120);
};

/** HTTP header names are case-insensitive: one lookup for every transcript. */
function header(capture: HttpCapture, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(capture.headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

interface Decoded {
  value?: JsonValue;
  /** Why the text is not standard base64 of UTF-8 JSON, when it is not. */
  defect?: string;
}

/** Strict reading for the encoding check; lenient (base64url too) so later checks still see content. */
function decodeBase64Json(text: string): Decoded {
  const trimmed = text.trim();
  const defects: string[] = [];
  if (!STANDARD_BASE64.test(trimmed)) defects.push(/[-_]/.test(trimmed) ? 'uses the base64url alphabet' : 'is not padded standard base64');
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return { defect: 'does not decode to UTF-8' };
  const text8 = decoded.text;
  try {
    const value = JSON.parse(text8) as JsonValue;
    if (!isJsonObject(value)) return { value, defect: 'does not decode to a JSON object' };
    return defects.length ? { value, defect: defects.join('; ') } : { value };
  } catch {
    return { defect: `does not decode to JSON (${quote(sliceWholeCharacters(text8, 40))})` };
  }
}

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const ATOMIC = /^(0|[1-9]\d*)$/;
const REQUIRED_MEMBERS = ['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'] as const;

function exposes(capture: HttpCapture, names: string[]): string[] {
  const exposed = (header(capture, 'access-control-expose-headers') ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (exposed.includes('*')) return [];
  return names.filter((n) => !exposed.includes(n.toLowerCase()));
}

/** Applies `test` to every accepts entry; the first failing entry is the evidence. */
function everyEntry(accepts: JsonObject[], test: (entry: JsonObject) => string | undefined): Verdict {
  for (const [i, entry] of accepts.entries()) {
    const problem = test(entry);
    if (problem) return fail(`accepts[${i}]: ${problem}`);
  }
  return pass();
}

function challengeChecks(t: AuditTranscript): Record<string, Verdict> {
  const c = t.challenge;
  const raw = header(c, 'payment-required');
  const out: Record<string, Verdict> = {};
  out['X402-HDR-001'] =
    c.status !== 402 ? fail(`status ${c.status}, not 402`) : raw === undefined ? fail('402 without a PAYMENT-REQUIRED header') : pass();
  const decoded = raw === undefined ? undefined : decodeBase64Json(raw);
  out['X402-ENC-001'] = !decoded ? absent('no PAYMENT-REQUIRED header to decode') : decoded.defect ? fail(`PAYMENT-REQUIRED ${decoded.defect}`) : pass();
  out['X402-CCH-001'] = c.status !== 402 ? absent('the challenge is not a 402')
    : /(^|[,\s])no-store($|[,\s;=])/i.test(header(c, 'cache-control') ?? '') ? pass()
      : fail(`Cache-Control is ${quote(header(c, 'cache-control') ?? '(absent)')}`);
  const missingExposed = [...exposes(c, ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE']), ...(t.paid ? exposes(t.paid, ['PAYMENT-RESPONSE']).map((n) => `${n} (paid answer)`) : [])];
  out['X402-COR-001'] = missingExposed.length ? fail(`Access-Control-Expose-Headers does not name ${missingExposed.join(', ')}`) : pass();

  const required = decoded && isJsonObject(decoded.value) ? decoded.value : undefined;
  const contentIds = ['X402-VER-001', 'X402-RES-001', 'X402-ACC-001', 'X402-REQ-001', 'X402-NET-001', 'X402-AMT-001', 'X402-EIP-001', 'X402-TMO-001'];
  if (!required) {
    for (const id of contentIds) out[id] = absent('no decodable PaymentRequired object');
    return out;
  }
  out['X402-VER-001'] = required.x402Version === 2 ? pass() : fail(`x402Version is ${quote(required.x402Version)}`);
  const resource = required.resource;
  out['X402-RES-001'] = isJsonObject(resource) && typeof resource.url === 'string' && resource.url.length > 0 ? pass() : fail(`resource is ${quote(resource)}`);
  const accepts = Array.isArray(required.accepts) ? required.accepts : undefined;
  out['X402-ACC-001'] = accepts && accepts.length > 0 ? pass() : fail(`accepts is ${quote(required.accepts)}`);
  const entries = (accepts ?? []).filter(isJsonObject);
  if (!accepts || accepts.length === 0 || entries.length !== accepts.length) {
    const why = !accepts || accepts.length === 0 ? 'no accepts entries to read' : 'an accepts entry is not an object';
    for (const id of contentIds.slice(3)) out[id] = accepts && accepts.length > 0 ? fail(why) : absent(why);
    return out;
  }
  out['X402-REQ-001'] = everyEntry(entries, (e) => {
    const missing = REQUIRED_MEMBERS.filter((m) => e[m] === undefined || e[m] === null || e[m] === '');
    return missing.length ? `missing ${missing.join(', ')}` : undefined;
  });
  out['X402-NET-001'] = everyEntry(entries, (e) => (typeof e.network === 'string' && CAIP2.test(e.network) ? undefined : `network ${quote(e.network)} is not CAIP-2`));
  out['X402-AMT-001'] = everyEntry(entries, (e) => (typeof e.amount === 'string' && ATOMIC.test(e.amount) ? undefined : `amount ${quote(e.amount)} is not an atomic-unit string`));
  const evmExact = entries.filter((e) => e.scheme === 'exact' && typeof e.network === 'string' && e.network.startsWith('eip155:'));
  out['X402-EIP-001'] = evmExact.length === 0 ? absent('no exact requirement on an eip155 network')
    : everyEntry(evmExact, (e) => {
      const extra = isJsonObject(e.extra) ? e.extra : {};
      const missing = ['name', 'version'].filter((k) => typeof extra[k] !== 'string' || extra[k] === '');
      return missing.length ? `extra lacks ${missing.join(' and ')}` : undefined;
    });
  out['X402-TMO-001'] = everyEntry(entries, (e) => (Number.isInteger(e.maxTimeoutSeconds) && (e.maxTimeoutSeconds as number) > 0 ? undefined : `maxTimeoutSeconds is ${quote(e.maxTimeoutSeconds)}`));
  return out;
}

function paidChecks(t: AuditTranscript): Record<string, Verdict> {
  const p = t.paid;
  if (!p) return { 'X402-PRS-001': absent('no paid answer supplied'), 'X402-SIG-001': absent('no paid answer supplied') };
  const raw = header(p, 'payment-response');
  let prs: Verdict;
  if (p.status < 200 || p.status > 299) prs = fail(`paid answer status ${p.status}`);
  else if (raw === undefined) prs = fail('paid answer without a PAYMENT-RESPONSE header');
  else {
    const d = decodeBase64Json(raw);
    const s = isJsonObject(d.value) ? d.value : undefined;
    prs = d.defect ? fail(`PAYMENT-RESPONSE ${d.defect}`)
      : !s || s.success !== true ? fail(`SettlementResponse success is ${quote(s?.success)}`)
        : typeof s.transaction !== 'string' || typeof s.network !== 'string' ? fail('SettlementResponse lacks transaction or network')
          : pass();
  }
  const body = isJsonObject(p.body) ? p.body : undefined;
  let sig: Verdict;
  if (!body || typeof body.sha256 !== 'string' || typeof body.ed25519Sig !== 'string') sig = absent('the paid answer carries no signed result (sha256, ed25519Sig)');
  else if (!t.publicKey) sig = absent('the result is signed but no publicKey was supplied');
  else {
    const record = signedRecordOf(body, t.signedMember);
    const result = record === undefined ? undefined : checkSignedRecord(record, body.sha256, body.ed25519Sig, t.publicKey);
    sig = !result ? fail(`signed member ${quote(t.signedMember)} is absent from the paid body`) : result.valid ? pass() : fail(result.reason ?? 'does not verify');
  }
  return { 'X402-PRS-001': prs, 'X402-SIG-001': sig };
}

/**
 * The audit's id, from what was audited: the same transcript is the same audit, whoever asks and
 * whenever (only the stamp of its first audit, auditedAt, is kept).
 */
export function auditIdOf(transcript: AuditTranscript): string {
  return canonicalSha256({ standard: CONFORMANCE_STANDARD_VERSION, transcript }).slice(0, 32);
}

/** The whole audit: every check of the standard, in the standard's order. */
export function auditTranscript(transcript: AuditTranscript, context: { auditId: string; now: number }): JsonObject {
  const verdicts = { ...challengeChecks(transcript), ...paidChecks(transcript) };
  const checks = checkResults(AUDIT_CHECKS, verdicts);
  const score = scoreOf(checks);
  return {
    kind: 'bureau.audit',
    ruleset: { ...CONFORMANCE_RULESET },
    auditId: context.auditId,
    endpoint: { url: transcript.endpoint.url, method: transcript.endpoint.method.toUpperCase() },
    transcriptSha256: canonicalSha256(transcript),
    // The bureau judged what it was shown: it did not observe the endpoint itself.
    evidence_source: 'caller-supplied',
    not_performed: [
      { check: 'live probe of the endpoint', reason: 'the service makes no network calls: the 402 challenge and the paid answer are the caller-supplied transcript' },
      { check: 'settlement on chain', reason: 'the transcript carries no chain evidence the bureau can check offline' },
    ],
    checks: checks.map((c) => ({ ...c })),
    score: { ...score },
    defects: checks.filter((c) => c.status === 'fail').map((c) => c.id),
    outcome: outcomeOf(score),
    auditedAt: context.now,
  };
}
