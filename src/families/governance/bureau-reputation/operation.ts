import { z } from 'zod';
import { jsonObject, rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { bureauReputationCommand } from './command.ts';
import { REPUTATION_RULESET } from './engine.ts';

export const reputationRecord = z.object({
  kind: z.literal('bureau.reputation'),
  ruleset: rulesetMember(REPUTATION_RULESET),
  endpoint: z.string(),
  minObservations: z.number().int(),
  evidence_source: z.literal('caller-supplied').describe('The caller chose which observations to send; only those this bureau signed are scored'),
  observations: z.object({
    supplied: z.number().int(),
    accepted: z.number().int().describe('Bureau-signed observations of this endpoint: the ones scored'),
    foreign: z.number().int().describe('Observations that verify only with a key the caller supplied: counted, never scored'),
    rejected: z.array(z.object({ index: z.number().int(), reason: z.string() })),
    verified: z
      .array(
        z.object({
          index: z.number().int(),
          sha256: z.string(),
          signedBy: z.enum(['bureau', 'other-key']),
          publicKey: z.string().describe('The key the signature verified with'),
          keyId: z.string().optional().describe('bureau only: the governance key id (any generation, see /v1/keys/history)'),
          key_generation: z.number().int().optional(),
          scored: z.boolean(),
        }),
      )
      .describe('Each observation not rejected, in input order, with the key that verified it'),
  }),
  observationsSha256: z.array(z.string()).describe('The scored observations, in time order'),
  assessedAt: z.number().int(),
  outcome: z.enum(['GOOD', 'FAIR', 'POOR', 'INSUFFICIENT-DATA']),
  reason: z.string().optional().describe('INSUFFICIENT-DATA only'),
  firstObservedAt: z.number().int().optional(),
  lastObservedAt: z.number().int().optional(),
  passRate: z.number().optional(),
  trend: z.object({ earlierPassRate: z.number(), laterPassRate: z.number(), delta: z.number(), direction: z.enum(['improving', 'declining', 'stable']) }).optional(),
  openDefects: z.array(z.string()).optional(),
});

const bureauReputationOperation = pricedOperation({
    id: 'bureau.reputation',
    method: 'POST',
    path: '/v1/bureau/reputation',
    family: 'governance',
    priceUsd: '0.10',
    summary: 'Reputation from signed observation history.',
    description:
      "An endpoint's reputation from supplied signed observations (bureau audits and receipt checks, each {evidenceCore, sha256, ed25519Sig, publicKey?}). Only observations signed by this bureau (its governance key of any generation, the key of the record's time) are scored; one that verifies only with a publicKey the caller supplies is listed and counted (observations.foreign), never scored, since anyone can sign a record saying CONFORMANT. Observations that do not verify, concern another endpoint or repeat one are set aside with the reason. Pass rate, trend (earlier half vs later half), open defects; INSUFFICIENT-DATA under min_observations (default 3) bureau-signed observations. The signed record is under evidenceCore (governance key).",
    inputFrom: 'json',
    input: z
      .object({
        endpoint: z.object({ url: z.string().min(1).max(2048) }).strict(),
        observations: z.array(z.object({ evidenceCore: jsonObject, sha256: z.string(), ed25519Sig: z.string(), publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a 32-byte Ed25519 public key in hex').optional() }).strict()).max(500),
        min_observations: z.number().int().min(1).max(500).optional(),
      })
      .strict(),
    example: { endpoint: { url: 'https://api.example.com/v1/data' }, observations: [], min_observations: 3 },
    output: signedResponse(reputationRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/bureau/verify',
    command: bureauReputationCommand,
  });

export const bureauReputation: Route[] = [bureauReputationOperation];
