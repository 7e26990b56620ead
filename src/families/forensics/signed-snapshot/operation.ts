import { z } from 'zod';
import { FRESHNESS_TIERS, SNAPSHOT_RULESET, publishedSnapshotRules, buildSignedSnapshot } from './engine.ts';
import { signedSnapshotInputSchema } from './input.ts';
import { rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { freeRoute, pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';

const unixSeconds = z.number().int();

const jsonRecord = z.record(z.string(), z.json());

const rejectionSchema = z.array(z.object({ index: z.number().int(), reason: z.string() }));

const snapshotSchema = z.object({
  kind: z.literal('data.signed-snapshot'),
  ruleset: rulesetMember(SNAPSHOT_RULESET).extend({ usability: z.literal(SNAPSHOT_RULESET.usability), freshness: z.literal(SNAPSHOT_RULESET.freshness) }),
  series: z.string(),
  outcome: z.enum(['SEALED', 'INSUFFICIENT-DATA']),
  missing: z.array(z.enum(['rows', 'citations', 'fetchedAt'])),
  freshness: z.object({ tier: z.enum(['LIVE', 'FRESH', 'RECENT', 'STALE', 'ARCHIVAL', 'FUTURE-DATED', 'NOT-PROVIDED']), fetchedAt: unixSeconds.nullable(), age_seconds: z.number().int().nullable() }),
  rows: z.array(z.json()),
  rows_count: z.number().int(),
  rows_rejected: rejectionSchema,
  citations: z.array(z.json()),
  citations_count: z.number().int(),
  citations_rejected: rejectionSchema,
  evidence_source: z.literal('caller-supplied').describe('Rows, citations and fetchedAt are the caller\'s, checked for form and sealed, not fetched by the service'),
  stampedAt: unixSeconds,
});

// The entryId of the evidence.ingest example, so the two examples chain.

const signedSnapshotOperation = pricedOperation({
    id: 'data.signed-snapshot',
    method: 'POST',
    path: '/v1/data/signed-snapshot',
    family: 'forensics',
    priceUsd: '0.30',
    summary: 'Seals series rows and source citations into one signed snapshot with a freshness tier.',
    description: `Usable rows (objects with at least one numeric member) and usable citations (http(s) URL or DOI) are sealed with the freshness tier and age of fetchedAt relative to stampedAt (${FRESHNESS_TIERS.version}, published at /v1/data/freshness-tiers). No fetchedAt: freshness NOT-PROVIDED. No usable row or no usable citation: outcome INSUFFICIENT-DATA. Unusable items are listed by index with the reason.`,
    inputFrom: 'json',
    input: signedSnapshotInputSchema,
    example: {
      series: 'ECB EUR/USD reference rate, daily',
      rows: [
        { date: '2025-12-30', value: 1.0412 },
        { date: '2025-12-31', value: 1.0389 },
      ],
      citations: [{ url: 'https://data.ecb.europa.eu/data/datasets/EXR', title: 'ECB Data Portal: exchange rates' }],
      fetchedAt: 1_767_225_000,
    },
    output: signedResponse(snapshotSchema, 'evidenceCore'),
    keyFamily: 'data',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/data/verify',
    command: fromEngine(buildSignedSnapshot),
  });

const dataVerifyRoutes = verifyRouteOnGetAndPost({ id: 'data.verify', path: '/v1/data/verify', family: 'forensics', keyFamily: 'data', summary: 'Re-checks a signed data snapshot (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody });

const freshnessTiers = freeRoute({
    id: 'data.freshness-tiers',
    method: 'GET',
    path: '/v1/data/freshness-tiers',
    family: 'forensics',
    summary: 'The versioned freshness tier table and usability rules of signed snapshots.',
    description: 'Publishes what each freshness tier of /v1/data/signed-snapshot meant when it was signed, and which rows and citations count as usable. Versioned: a signed snapshot names the versions it used.',
    output: z.object({ freshness: jsonRecord, usability: jsonRecord }),
    async handle() {
      return { body: publishedSnapshotRules() };
    },
  });

export const signedSnapshot: Route[] = [signedSnapshotOperation, ...dataVerifyRoutes, freshnessTiers];
