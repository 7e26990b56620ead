import { z } from 'zod';
import { AMOUNT_PATTERN } from '../../../kernel/decimal-amount.ts';
import { canonicalText, type JsonObject, type JsonValue } from '../../../signing/rfc8785.ts';
import { verifyBySigner } from '../../../kernel/offline-signatures.ts';
import { round, wilsonLowerBound } from '../shared/stats.ts';
import { keyIdentityOf, keyIdentityText, sameHolder } from '../shared/key-identity.ts';
import { shortened } from '../../../kernel/whole-characters.ts';

/** Version 2 (2026-11-27): self-attestation is told by the signing key, not by how it is spelled; an event repeated counts once. */
export const REPUTATION_RULESET = { id: 'agent-reputation', version: '2' } as const;
export const REPUTATION_KIND = 'agent-reputation';
/** Recency half-life: an outcome 30 days older than the newest one counts half. */
export const RECENCY_HALF_LIFE_SECONDS = 30 * 24 * 3600;
const WEIGHTS = { wilson: 0.5, recency: 0.3, noDispute: 0.2 } as const;
const NOT_PERFORMED = [
  { check: 'signer identity', reason: 'a signer is a key the caller names: a valid signature shows its holder signed the event, not who the holder is' },
  { check: 'the outcomes themselves', reason: 'no transaction or counterparty is contacted: an event says what its signer attests, not what happened' },
] as const;
/** Reasons are cut here to keep a composite small; one too large for a GET URL is re-checked on POST. */
const MAX_REASON_CHARS = 160;

const outcomeEvent = z
  .object({
    agent: z.string().min(1),
    outcome: z.enum(['success', 'failure', 'dispute']),
    at: z.number().int().nonnegative(),
    counterparty: z.string().min(1).optional(),
    // Decimal strings as the governance routes take them ("1.50"), or the number as JSON has it.
    amount: z.union([z.number().nonnegative(), z.string().regex(AMOUNT_PATTERN)]).optional(),
  })
  .strict();
type OutcomeEvent = z.infer<typeof outcomeEvent>;

const signedEvent = z.object({ event: z.json(), signature: z.string(), signer: z.string() }).strict();

export interface ReputationInput {
  agent: string;
  /** Raw as supplied: each is parsed here so that a bad one is reported, not refused. */
  events: JsonValue[];
}

interface ValidEvent extends OutcomeEvent {
  signer: string;
  /** The signer's key however it was spelled (keyIdentityText): one key is one signer. */
  signerKey: string;
  /** The RFC 8785 text of the event, as signed. */
  canonical: string;
}

type Screened = { ok: true; event: ValidEvent } | { ok: false; reason: string };

/** One supplied event -> a valid outcome, or the reason it is left out. */
export function screenEvent(raw: JsonValue, agent: string): Screened {
  const envelope = signedEvent.safeParse(raw);
  if (!envelope.success) {
    const unsigned = raw !== null && typeof raw === 'object' && !Array.isArray(raw) && (raw.signature === undefined || raw.signature === '');
    return { ok: false, reason: unsigned ? 'unsigned: no signature' : `unparseable: expected {event, signature, signer} (${issueText(envelope.error)})` };
  }
  const { event, signature, signer } = envelope.data;
  if (signature === '') return { ok: false, reason: 'unsigned: empty signature' };
  const parsed = outcomeEvent.safeParse(event);
  if (!parsed.success) return { ok: false, reason: `unparseable event: ${issueText(parsed.error)}` };
  if (parsed.data.agent !== agent) return { ok: false, reason: `event is about agent ${parsed.data.agent}, not ${agent}` };
  const self = sameHolder(signer, agent);
  if (self.same) {
    return { ok: false, reason: self.compared === 'key identity' ? "self-attested: signed by the agent's own key" : 'self-attested: signed by the agent itself' };
  }
  // The signature covers the RFC 8785 text of the event exactly as supplied.
  const canonical = canonicalText(event);
  const check = verifyBySigner(signer, canonical, signature);
  if (!check.ok) return { ok: false, reason: `bad signature: ${check.reason}` };
  const signerKey = keyIdentityOf(signer);
  if (!signerKey) return { ok: false, reason: 'bad signature: signer names no key' };
  return { ok: true, event: { ...parsed.data, signer, signerKey: keyIdentityText(signerKey), canonical } };
}

/**
 * What self-attestation was told by: the agent's key when the agent names one, else its text
 * (a did:web or a name resolves to no key offline, and the record says so).
 */
function selfAttestationCheck(agent: string): JsonObject {
  const identity = keyIdentityOf(agent);
  if (identity) {
    return { compared: 'key identity', agent_key: keyIdentityText(identity), detail: "each signer's key (Ed25519 key or EVM address, however spelled) was compared with the agent's" };
  }
  return {
    compared: 'text',
    detail:
      "the agent names no key readable offline (not a did:key, did:pkh:eip155, EVM address or raw Ed25519 key): each signer was compared with it as text, case-insensitively, so a signer holding the agent's key under another name is not detected",
  };
}

function issueText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'} ${i.message}`).join('; ');
}

function verdictText(score: number, valid: number, successes: number): string {
  const band = score >= 0.8 ? 'strong' : score >= 0.6 ? 'good' : score >= 0.4 ? 'mixed' : 'weak';
  return `${band} reputation: score ${score.toFixed(2)} from ${valid} signed outcome${valid === 1 ? '' : 's'}, ${successes} successful`;
}

/**
 * The composite. Recency is measured from the newest supplied event, never the wall clock, so
 * the same events give the same composite whenever they are scored.
 */
export function composeReputation(input: ReputationInput, now: number): JsonObject {
  const valid: ValidEvent[] = [];
  const rejected: JsonObject[] = [];
  // One signed outcome counts once, whoever sends it again and however its signer is spelled.
  const firstIndexOf = new Map<string, number>();
  input.events.forEach((raw, index) => {
    const screened = screenEvent(raw, input.agent);
    if (screened.ok) {
      const key = `${screened.event.signerKey} ${screened.event.canonical}`;
      const first = firstIndexOf.get(key);
      if (first === undefined) {
        firstIndexOf.set(key, index);
        valid.push(screened.event);
      } else rejected.push({ index, reason: `duplicate: the same event signed by the same key as event ${first}` });
    } else rejected.push({ index, reason: shortened(screened.reason, MAX_REASON_CHARS) });
  });
  const base = {
    kind: REPUTATION_KIND,
    agent: input.agent,
    ruleset: { ...REPUTATION_RULESET },
    self_attestation_check: selfAttestationCheck(input.agent),
    events_supplied: input.events.length,
    rejected_events: rejected,
    // The events are the caller's: signatures are checked, the outcomes they attest are not.
    evidence_source: 'caller-supplied',
    not_performed: [...NOT_PERFORMED],
  };
  if (valid.length === 0) {
    return { ...base, outcome: 'INSUFFICIENT-DATA', verdict: 'insufficient data: no valid signed outcome event, no score', composedAt: now };
  }
  const count = (o: OutcomeEvent['outcome']) => valid.filter((e) => e.outcome === o).length;
  const successes = count('success');
  const disputes = count('dispute');
  const newest = valid.reduce((at, e) => Math.max(at, e.at), -Infinity);
  const oldest = valid.reduce((at, e) => Math.min(at, e.at), Infinity);
  let weightSum = 0;
  let weightedSuccess = 0;
  for (const e of valid) {
    const weight = 0.5 ** ((newest - e.at) / RECENCY_HALF_LIFE_SECONDS);
    weightSum += weight;
    if (e.outcome === 'success') weightedSuccess += weight;
  }
  const wilson = wilsonLowerBound(successes, valid.length);
  const recencyWeighted = weightedSuccess / weightSum;
  const disputeRate = disputes / valid.length;
  const score = round(Math.min(1, Math.max(0, WEIGHTS.wilson * wilson + WEIGHTS.recency * recencyWeighted + WEIGHTS.noDispute * (1 - disputeRate))));
  const counterparties = new Set(valid.flatMap((e) => (e.counterparty ? [e.counterparty] : [])));
  return {
    ...base,
    outcome: 'SCORED',
    counts: { valid: valid.length, rejected: rejected.length, success: successes, failure: count('failure'), dispute: disputes },
    success_rate: round(successes / valid.length),
    wilson_lower_bound: round(wilson),
    dispute_rate: round(disputeRate),
    recency_weighted_success_rate: round(recencyWeighted),
    recency_half_life_seconds: RECENCY_HALF_LIFE_SECONDS,
    newest_event_at: newest,
    oldest_event_at: oldest,
    distinct_counterparties: counterparties.size,
    distinct_signers: new Set(valid.map((e) => e.signerKey)).size,
    weights: { ...WEIGHTS },
    reputation_score: score,
    verdict: verdictText(score, valid.length, successes),
    composedAt: now,
  };
}
