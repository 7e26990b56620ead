import { z } from 'zod';
import { freeRoute, pricedOperation, type Route } from '../../../kernel/operation.ts';
import { complianceRecord } from '../../../kernel/route-kit/records.ts';
import { signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { param, parseIntegerParam, parseJsonParam, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { classify } from './engine.ts';
import { QUESTIONNAIRE, QUESTIONNAIRE_BYTES, QUESTIONNAIRE_REF } from './questionnaire.ts';

const questionIds = QUESTIONNAIRE.questions.map((q) => q.id) as [string, ...string[]];
const input = z
  .object({
    asset: z.string().min(1).max(500).describe('The AI system or model assessed'),
    use_case: z
      .object({
        description: z.string().max(10_000).describe('Free text: never decides the class; it may suggest questions (unconfirmed)'),
        domain: z.string().max(200).optional(),
        role: z.enum(['provider', 'deployer', 'provider-and-deployer']).optional().describe('Whose obligations to list; default provider'),
        answers: z.partialRecord(z.enum(questionIds), z.enum(['yes', 'no', 'unknown'])).describe('Answers to GET /v1/compliance/questionnaire, by question id'),
      })
      .strict(),
  })
  .strict();

const yesNo = (ids: string[], value: 'yes' | 'no') => Object.fromEntries(ids.map((id) => [id, value]));
const idsOf = (group: string) => QUESTIONNAIRE.questions.filter((q) => q.group === group).map((q) => q.id);

export const CV_SCREENING_EXAMPLE = {
  asset: 'cv-ranker v3',
  use_case: {
    description: 'Ranks job applicants by CV for recruiters.',
    domain: 'employment',
    role: 'provider' as const,
    answers: { ...yesNo(idsOf('prohibited'), 'no'), ...yesNo(idsOf('annex_i'), 'no'), ...yesNo(idsOf('annex_iii'), 'no'), annex_iii_4_a: 'yes' as const, art6_3_profiling: 'yes' as const, ...yesNo(idsOf('transparency'), 'no') },
  },
};

export const complianceCheck = pricedOperation({
  id: 'compliance.check',
  method: 'POST',
  path: '/v1/compliance/check',
  family: 'security',
  priceUsd: '1.00',
  summary: 'Classifies an AI use case against EU AI Act Annex III risk classes and lists obligations in a signed snapshot.',
  description:
    'From the answers to the published questionnaire (GET /v1/compliance/questionnaire: every point of Article 5(1), with the one the Digital Omnibus on AI adds on non-consensual sexual and intimate content and child sexual abuse material (prohibited from 2 December 2026; a snapshot made before then says it was not yet in force), Article 6(1) with Annex I, every point of Annex III, the Article 6(3) derogations and the profiling rule, Article 50, general-purpose AI models, and the questions about the deployer of Articles 27 and 49(3)): PROHIBITED, HIGH-RISK, LIMITED-RISK with its transparency duties, MINIMAL-RISK, or INSUFFICIENT-DATA naming the deciding questions not answered yes or no. Every matched article or Annex point, the derogations considered and the obligations that follow with the dates they apply from (Regulation (EU) 2024/1689, and the Digital Omnibus on AI dates beside them). Free text never yields a class.',
  inputFrom: 'json',
  input,
  example: CV_SCREENING_EXAMPLE,
  output: signedResponse(z.object({ kind: z.literal('compliance-snapshot'), assessedAt: z.number().int(), asset: z.string(), assessment: z.looseObject({ risk_class: z.enum(['PROHIBITED', 'HIGH-RISK', 'LIMITED-RISK', 'MINIMAL-RISK', 'INSUFFICIENT-DATA']) }) }), null),
  keyFamily: 'compliance',
  signedMember: null,
  verifyPath: '/v1/compliance/verify',
  command: { execute: async (i, ctx) => ({ record: classify(i, QUESTIONNAIRE, { ...QUESTIONNAIRE_REF }, ctx.now) }) },
});

const questionnaireRoute = freeRoute({
  id: 'compliance.questionnaire',
  method: 'GET',
  path: '/v1/compliance/questionnaire',
  family: 'security',
  summary: 'The EU AI Act questionnaire compliance/check reads, versioned; its SHA-256 is in every snapshot.',
  description: 'The exact bytes shipped with the service: the SHA-256 of this answer equals assessment.ruleset.data[0].sha256 of the snapshots it decided.',
  output: z.looseObject({ name: z.string(), version: z.string(), questions: z.array(z.looseObject({ id: z.string() })) }),
  handle: async () => ({ text: QUESTIONNAIRE_BYTES.toString('utf8'), contentType: 'application/json; charset=utf-8', headers: { 'Cache-Control': 'public, max-age=3600' } }),
});

const complianceVerifyRoutes = verifyRouteOnGetAndPost({
  id: 'compliance.verify',
  path: '/v1/compliance/verify',
  family: 'security',
  keyFamily: 'compliance',
  summary: 'Re-checks a compliance snapshot {kind, assessedAt, asset, assessment} (assessment as JSON).',
  params: { kind: param.text(), assessed_at: param.integer('assessedAt'), asset: param.text(), assessment: param.json("the record's assessment") },
  rebuild: (p) => complianceRecord({ kind: p.kind, assessedAt: parseIntegerParam(p.assessed_at), asset: p.asset, assessment: parseJsonParam('assessment', p.assessment) }),
});

export const complianceRoutes: Route[] = [complianceCheck, questionnaireRoute, ...complianceVerifyRoutes];
