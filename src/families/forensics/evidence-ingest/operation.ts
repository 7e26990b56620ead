import { z } from 'zod';
import { evidenceIngestCommand } from './command.ts';
import { EVIDENCE_ENTRY_RULESET } from './engine.ts';
import { evidenceIngestInputSchema } from './input.ts';
import { hex64, rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';

const unixSeconds = z.number().int();

const jsonRecord = z.record(z.string(), z.json());

const sealedEvidenceSchema = z.object({
  kind: z.literal('evidence.entry'),
  ruleset: rulesetMember(EVIDENCE_ENTRY_RULESET),
  entryId: hex64.describe('SHA-256 of the canonical entry content and action hash: stable per entry'),
  entry: z.object({
    action: z.string(),
    actor: z.string().optional(),
    subject: z.string().optional(),
    occurredAt: unixSeconds.optional(),
    payload: jsonRecord.optional(),
  }),
  action_hash: hex64,
  action_hash_source: z.enum(['derived', 'supplied-matches-derivation', 'supplied']),
  evidence_source: z.literal('caller-supplied').optional().describe('The entry is the caller\'s account, sealed as given, not observed by the service (absent from entries sealed before 2026-11-27)'),
  sealedAt: unixSeconds.describe('Unix seconds of the first seal of this entry'),
});

const evidenceIngestOperation = pricedOperation({
    id: 'evidence.ingest',
    method: 'POST',
    path: '/v1/evidence/ingest',
    family: 'forensics',
    priceUsd: '0.20',
    summary: 'Seals one evidence record; returns entryId.',
    description:
      'The entry {action, actor?, subject?, occurredAt?, payload?} is carried verbatim. action_hash, when omitted, is the SHA-256 of the canonical entry. entryId is the SHA-256 of the canonical entry and action hash, so it is stable per entry: ingesting the same content again returns the first sealed record (same sealedAt, digest and signature) and stores nothing new.',
    inputFrom: 'json',
    input: evidenceIngestInputSchema,
    example: { action: 'model.deployed', actor: 'did:example:ops-team', subject: 'example-7b@2025-12-31', payload: { environment: 'production', approvals: 2 } },
    output: signedResponse(sealedEvidenceSchema, 'sealed'),
    keyFamily: 'evidence',
    signedMember: 'sealed',
    verifyPath: '/v1/evidence/verify',
    // Whether an identical entry already existed is said beside the record: a replay runs the command again to say it the same way.
    outputBeside: true,
    command: evidenceIngestCommand,
  });

const evidenceVerifyRoutes = verifyRouteOnGetAndPost({ id: 'evidence.verify', path: '/v1/evidence/verify', family: 'forensics', keyFamily: 'evidence', summary: 'Re-checks an evidence ingest (sealed) or query (receipt) record.', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const evidenceIngest: Route[] = [evidenceIngestOperation, ...evidenceVerifyRoutes];
