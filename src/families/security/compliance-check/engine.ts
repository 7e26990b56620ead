import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { complianceRecord } from '../../../kernel/route-kit/records.ts';

export type Answer = 'yes' | 'no' | 'unknown';
export interface Question {
  id: string;
  group: 'prohibited' | 'annex_i' | 'annex_iii' | 'derogation' | 'transparency' | 'gpai' | 'deployer';
  basis: string;
  question: string;
  keywords?: string[] | undefined;
}
export interface Questionnaire {
  regulation: string;
  amendments: Array<{ act: string; status: string; effect: string }>;
  questions: Question[];
  application_dates: Record<string, Record<string, string>>;
}

export interface ComplianceInput {
  asset: string;
  use_case: { description: string; domain?: string | undefined; role?: 'provider' | 'deployer' | 'provider-and-deployer' | undefined; answers: Partial<Record<string, Answer>> };
}

export const COMPLIANCE_RULESET_ID = 'eu-ai-act-classification';

const HIGH_RISK_PROVIDER = [
  ['Article 9', 'risk management system'],
  ['Article 10', 'data and data governance'],
  ['Article 11', 'technical documentation'],
  ['Article 12', 'record-keeping (automatic logs)'],
  ['Article 13', 'transparency and information to deployers'],
  ['Article 14', 'human oversight'],
  ['Article 15', 'accuracy, robustness and cybersecurity'],
  ['Article 16', 'obligations of providers'],
  ['Article 17', 'quality management system'],
  ['Article 43', 'conformity assessment'],
  ['Article 49', 'registration in the EU database'],
] as const;
const TRANSPARENCY: Record<string, [string, string, string]> = {
  art50_1: ['Article 50(1)', 'inform persons that they are interacting with an AI system', 'provider'],
  art50_2: ['Article 50(2)', 'mark synthetic audio, image, video or text output in a machine-readable format', 'provider'],
  art50_3: ['Article 50(3)', 'inform exposed persons of the emotion recognition or biometric categorisation', 'deployer'],
  art50_4: ['Article 50(4)', 'disclose that content is artificially generated or manipulated (deep fakes, public-interest text)', 'deployer'],
};

type Answers = Partial<Record<string, Answer>>;
type Obligation = { article: string; title: string; role: string; applies_from: JsonValue };
interface Findings {
  riskClass: string;
  matched: JsonValue[];
  derogations: JsonValue[];
  obligations: Obligation[];
  missing: string[];
}
interface Rules {
  answers: Answers;
  group: (g: Question['group']) => Question[];
  obligation: (article: string, title: string, role: string, datesKey: string) => Obligation;
}

const DEROGATION_CONDITIONS = ['art6_3_a', 'art6_3_b', 'art6_3_c', 'art6_3_d'];
const isDecided = (a: Answer | undefined) => a === 'yes' || a === 'no';
const yesTo = (answers: Answers, qs: Question[]) => qs.filter((q) => answers[q.id] === 'yes');
const undecided = (answers: Answers, qs: Question[]) => qs.filter((q) => !isDecided(answers[q.id])).map((q) => q.id);
const matchesOf = (qs: Question[]): JsonValue[] => qs.map((q) => ({ question: q.id, basis: q.basis, answer: 'yes' }));

/** Article 6(3): an Annex III system escapes high risk only when it does not profile, meets a condition and poses no significant risk. */
function derogation(rules: Rules): { high: boolean; considered: JsonValue; obligations: Obligation[]; missing: string[] } {
  const { answers } = rules;
  const profiling = answers['art6_3_profiling'];
  const conditions = DEROGATION_CONDITIONS.filter((id) => answers[id] === 'yes');
  const noSignificantRisk = answers['art6_3_no_significant_risk'];
  if (profiling === 'yes')
    return { high: true, considered: { article: 'Article 6(3)', applies: false, reason: 'the system profiles natural persons: an Annex III system that does is always high-risk (Article 6(3), second subparagraph)' }, obligations: [], missing: [] };
  if (profiling === 'no' && conditions.length > 0 && noSignificantRisk === 'yes')
    return {
      high: false,
      considered: { article: 'Article 6(3)', applies: true, conditions_met: conditions, reason: 'an Article 6(3) condition is met and the provider states no significant risk of harm' },
      obligations: [
        rules.obligation('Article 6(4)', 'document the assessment that the Annex III system is not high-risk before placing it on the market, and provide it on request', 'provider', 'annex_iii_high_risk'),
        rules.obligation('Article 49(2)', 'register the system in the EU database', 'provider', 'annex_iii_high_risk'),
      ],
      missing: [],
    };
  if (profiling === 'no' && (noSignificantRisk === 'no' || DEROGATION_CONDITIONS.every((id) => answers[id] === 'no')))
    return { high: true, considered: { article: 'Article 6(3)', applies: false, reason: 'no Article 6(3) condition is met, or the system may pose a significant risk of harm' }, obligations: [], missing: [] };
  return { high: false, considered: null, obligations: [], missing: ['art6_3_profiling', ...DEROGATION_CONDITIONS, 'art6_3_no_significant_risk'].filter((id) => !isDecided(answers[id])) };
}

function highRiskObligations(rules: Rules, role: string, annexIHigh: boolean): { obligations: Obligation[]; missing: string[] } {
  const { answers } = rules;
  const datesKey = annexIHigh ? 'annex_i_high_risk' : 'annex_iii_high_risk';
  const obligations = role === 'deployer' ? [] : HIGH_RISK_PROVIDER.map(([article, title]) => rules.obligation(article, title, 'provider', datesKey));
  const missing: string[] = [];
  if (role !== 'provider') {
    obligations.push(rules.obligation('Article 26', 'obligations of deployers of high-risk AI systems', 'deployer', datesKey));
    const creditOrInsurance = answers['annex_iii_5_b'] === 'yes' || answers['annex_iii_5_c'] === 'yes';
    if (creditOrInsurance || answers['art27_public_service'] === 'yes') obligations.push(rules.obligation('Article 27', 'fundamental rights impact assessment before first use', 'deployer', datesKey));
    else if (answers['art27_public_service'] !== 'no') missing.push('art27_public_service');
  }
  return { obligations, missing };
}

function transparencyDuties(rules: Rules): Obligation[] {
  return yesTo(rules.answers, rules.group('transparency')).map((q) => {
    const [article, title, who] = TRANSPARENCY[q.id]!;
    return rules.obligation(article, title, who, 'transparency');
  });
}

/** Not prohibited: Article 6(1) with Annex I, Annex III with the Article 6(3) derogation, then Article 50 for what is left. */
function classifyPermitted(rules: Rules, role: string): Findings {
  const { answers } = rules;
  const annexIAnswer = [answers['art6_1_annex_i_product'], answers['art6_1_third_party_assessment']];
  const annexIHigh = annexIAnswer.every((a) => a === 'yes');
  const annexIDecided = annexIHigh || annexIAnswer.includes('no');
  const annexIIIYes = yesTo(answers, rules.group('annex_iii'));
  const found: Findings = { riskClass: '', matched: annexIHigh ? matchesOf(yesTo(answers, rules.group('annex_i'))) : [], derogations: [], obligations: [], missing: [] };
  let high = annexIHigh;
  if (annexIIIYes.length > 0) {
    const d = derogation(rules);
    high ||= d.high;
    if (d.considered !== null) found.derogations.push(d.considered);
    found.obligations.push(...d.obligations);
    found.missing.push(...d.missing);
    found.matched.push(...matchesOf(annexIIIYes));
  }
  const duties = transparencyDuties(rules);
  if (found.missing.length > 0) return { ...found, riskClass: 'INSUFFICIENT-DATA' };
  if (high) {
    const obligations = highRiskObligations(rules, role, annexIHigh);
    found.obligations.push(...obligations.obligations, ...duties);
    return { ...found, riskClass: obligations.missing.length > 0 ? 'INSUFFICIENT-DATA' : 'HIGH-RISK', missing: obligations.missing };
  }
  const openHighRisk = [...(annexIDecided ? [] : undecided(answers, rules.group('annex_i'))), ...undecided(answers, rules.group('annex_iii'))];
  if (openHighRisk.length > 0) return { ...found, riskClass: 'INSUFFICIENT-DATA', missing: openHighRisk };
  const openTransparency = undecided(answers, rules.group('transparency'));
  found.obligations.push(...duties);
  if (duties.length > 0) return { ...found, riskClass: 'LIMITED-RISK', matched: [...found.matched, ...matchesOf(yesTo(answers, rules.group('transparency')))], missing: openTransparency };
  return { ...found, riskClass: openTransparency.length > 0 ? 'INSUFFICIENT-DATA' : 'MINIMAL-RISK', missing: openTransparency };
}

function classifyAnswers(rules: Rules, role: string): Findings {
  const prohibited = rules.group('prohibited');
  const practices = yesTo(rules.answers, prohibited);
  if (practices.length > 0)
    return { riskClass: 'PROHIBITED', matched: matchesOf(practices), derogations: [], obligations: [rules.obligation('Article 5', 'the practice may not be placed on the market, put into service or used', 'all', 'prohibitions')], missing: [] };
  const open = undecided(rules.answers, prohibited);
  if (open.length > 0) return { riskClass: 'INSUFFICIENT-DATA', matched: [], derogations: [], obligations: [], missing: open };
  return classifyPermitted(rules, role);
}

function gpaiObligations(rules: Rules): Obligation[] {
  if (rules.answers['gpai_model'] !== 'yes') return [];
  const model = rules.obligation('Article 53', 'obligations of providers of general-purpose AI models', 'provider', 'gpai');
  if (rules.answers['gpai_systemic_risk'] !== 'yes') return [model];
  return [model, rules.obligation('Article 55', 'obligations of providers of general-purpose AI models with systemic risk', 'provider', 'gpai')];
}

/** Words of the description only point at questions to answer; they are never an answer. */
function candidatesFromDescription(input: ComplianceInput, rules: Rules): JsonValue[] {
  const text = `${input.use_case.description} ${input.use_case.domain ?? ''}`.toLowerCase();
  return [...rules.group('annex_iii'), ...rules.group('prohibited'), ...rules.group('transparency')]
    .filter((q) => q.keywords?.some((k) => text.includes(k.toLowerCase())))
    .map((q) => ({ question: q.id, basis: q.basis, status: 'unconfirmed: suggested by words of the description, not an answer' }));
}

/**
 * Classifies one AI use case from the published questionnaire's answers, never from free text: a
 * class is given only when the answers decide it, and an answer that would decide it but is
 * missing or unknown gives INSUFFICIENT-DATA naming the questions.
 */
export function classify(input: ComplianceInput, questionnaire: Questionnaire, dataRef: JsonObject, now: number): JsonObject {
  const answers = input.use_case.answers;
  const role = input.use_case.role ?? 'provider';
  const rules: Rules = {
    answers,
    group: (g) => questionnaire.questions.filter((q) => q.group === g),
    obligation: (article, title, who, datesKey) => ({ article, title, role: who, applies_from: questionnaire.application_dates[datesKey] ?? {} }),
  };
  const findings = classifyAnswers(rules, role);
  return complianceRecord({
    kind: 'compliance-snapshot',
    assessedAt: now,
    asset: input.asset,
    assessment: {
      ruleset: { id: COMPLIANCE_RULESET_ID, version: '1', regulation: questionnaire.regulation, amendments: questionnaire.amendments as unknown as JsonValue, data: [dataRef] },
      risk_class: findings.riskClass,
      outcome: findings.riskClass,
      role,
      matched: findings.matched,
      derogations_considered: findings.derogations,
      obligations: [...findings.obligations, ...gpaiObligations(rules)],
      missing_answers: [...new Set(findings.missing)],
      unanswered_questions: questionnaire.questions.filter((q) => answers[q.id] === undefined).length,
      candidates_from_description: candidatesFromDescription(input, rules),
      evidence_source: 'caller-supplied',
      limitations: [
        "the class follows from the caller's answers to the published questionnaire; the service does not examine the system",
        'free text never yields a class: words of the description only suggest questions to answer',
        'the Digital Omnibus prohibition of non-consensual intimate content is not yet a question',
        'not legal advice',
      ],
    },
  });
}
