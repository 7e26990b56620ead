import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { rfc3339Seconds } from '../../../kernel/calendar.ts';
import { complianceRecord } from '../../../kernel/route-kit/records.ts';

export type Answer = 'yes' | 'no' | 'unknown';
export interface Question {
  id: string;
  group: 'prohibited' | 'annex_i' | 'annex_iii' | 'derogation' | 'transparency' | 'gpai' | 'deployer';
  basis: string;
  /** Where the question's wording comes from, when that is not the Regulation's published text. */
  source?: string | undefined;
  /** The application_dates entry its obligation takes, when not its group's. */
  application_dates_key?: string | undefined;
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
/** Bumped whenever a record would say something else for the same answers; the doc's version history says why. */
export const COMPLIANCE_RULESET_VERSION = '4';

/** Every provider of a high-risk system, whichever route made it high-risk; registration depends on the route (see registration). */
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
] as const;
const TRANSPARENCY: Record<string, [string, string, string]> = {
  art50_1: ['Article 50(1)', 'inform persons that they are interacting with an AI system', 'provider'],
  art50_2: ['Article 50(2)', 'mark synthetic audio, image, video or text output in a machine-readable format', 'provider'],
  art50_3: ['Article 50(3)', 'inform exposed persons of the emotion recognition or biometric categorisation', 'deployer'],
  art50_4: ['Article 50(4)', 'disclose that content is artificially generated or manipulated (deep fakes, public-interest text)', 'deployer'],
};

type Answers = Partial<Record<string, Answer>>;
type Obligation = { article: string; title: string; role: string; applies_from: JsonValue; status?: string };
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
  dates: (datesKey: string) => Record<string, string>;
  now: number;
}
/** Whether one route to high risk holds: decided either way, or open with the answers that would decide it. */
type Status = 'high' | 'not-high' | 'open';
interface AnnexIIIRoute {
  status: Status;
  points: Question[];
  considered: JsonValue | null;
  missing: string[];
}

const DEROGATION_CONDITIONS = ['art6_3_a', 'art6_3_b', 'art6_3_c', 'art6_3_d'];
/** Article 27(1) and Article 49(1) and (5) treat the critical-infrastructure point of Annex III apart. */
const CRITICAL_INFRASTRUCTURE = 'annex_iii_2';
/** Article 27(1): deployers of these Annex III points owe the assessment whoever they are. */
const FRIA_WHATEVER_THE_DEPLOYER = ['annex_iii_5_b', 'annex_iii_5_c'];
const isDecided = (a: Answer | undefined) => a === 'yes' || a === 'no';
const yesTo = (answers: Answers, qs: Question[]) => qs.filter((q) => answers[q.id] === 'yes');
const undecided = (answers: Answers, qs: Question[]) => qs.filter((q) => !isDecided(answers[q.id])).map((q) => q.id);
const matchesOf = (qs: Question[]): JsonValue[] => qs.map((q) => ({ question: q.id, basis: q.basis, ...(q.source === undefined ? {} : { source: q.source }), answer: 'yes' }));
const refused = (reason: string) => ({ status: 'high' as const, considered: { article: 'Article 6(3)', applies: false, reason }, missing: [] });

/**
 * Article 6(3) of Regulation (EU) 2024/1689: an Annex III system is not high-risk where it poses no
 * significant risk of harm (first subparagraph), which holds only where one of conditions (a)-(d)
 * is met (second subparagraph), and never where it profiles natural persons (third subparagraph).
 * The questionnaire asks the no-significant-risk finding apart from the conditions, so the
 * derogation needs a condition, that finding and no profiling; any one of them failing settles
 * the system as high-risk, so only the answers that could still let the derogation apply are asked.
 */
function derogation(answers: Answers): Omit<AnnexIIIRoute, 'points'> {
  const profiling = answers['art6_3_profiling'];
  const conditions = DEROGATION_CONDITIONS.filter((id) => answers[id] === 'yes');
  const noSignificantRisk = answers['art6_3_no_significant_risk'];
  if (profiling === 'yes') return refused('the system profiles natural persons: an Annex III system that does is always high-risk (Article 6(3), third subparagraph)');
  if (DEROGATION_CONDITIONS.every((id) => answers[id] === 'no')) return refused('none of the conditions (a) to (d) of Article 6(3), second subparagraph, is met, so the derogation cannot apply whatever the other answers');
  if (noSignificantRisk === 'no') return refused('the system may pose a significant risk of harm to health, safety or fundamental rights (Article 6(3), first subparagraph)');
  if (profiling === 'no' && conditions.length > 0 && noSignificantRisk === 'yes')
    return { status: 'not-high', considered: { article: 'Article 6(3)', applies: true, conditions_met: conditions, reason: 'an Article 6(3) condition is met, the provider states no significant risk of harm and the system does not profile natural persons' }, missing: [] };
  const openConditions = conditions.length > 0 ? [] : DEROGATION_CONDITIONS.filter((id) => !isDecided(answers[id]));
  return { status: 'open', considered: null, missing: [...(isDecided(profiling) ? [] : ['art6_3_profiling']), ...openConditions, ...(isDecided(noSignificantRisk) ? [] : ['art6_3_no_significant_risk'])] };
}

/** Article 6(1): an Annex I product, or its safety component, that needs a third-party conformity assessment. */
function annexIRoute(rules: Rules): { status: Status; missing: string[] } {
  const answers = [rules.answers['art6_1_annex_i_product'], rules.answers['art6_1_third_party_assessment']];
  if (answers.every((a) => a === 'yes')) return { status: 'high', missing: [] };
  if (answers.includes('no')) return { status: 'not-high', missing: [] };
  return { status: 'open', missing: undecided(rules.answers, rules.group('annex_i')) };
}

/** Article 6(2) with Annex III, less the Article 6(3) derogation. */
function annexIIIRoute(rules: Rules): AnnexIIIRoute {
  const points = yesTo(rules.answers, rules.group('annex_iii'));
  if (points.length > 0) return { ...derogation(rules.answers), points };
  const open = undecided(rules.answers, rules.group('annex_iii'));
  return { status: open.length > 0 ? 'open' : 'not-high', points, considered: null, missing: open };
}

/**
 * Article 49: a provider registers an Annex III high-risk system in the EU database (paragraph 1),
 * except one under point 2, which is registered at national level (paragraph 5). Annex I systems
 * are not registered under Article 49.
 */
function registration(rules: Rules, route: AnnexIIIRoute): { obligations: Obligation[]; missing: string[] } {
  if (route.points.some((q) => q.id !== CRITICAL_INFRASTRUCTURE)) return { obligations: [rules.obligation('Article 49(1)', 'registration in the EU database', 'provider', 'annex_iii_high_risk')], missing: [] };
  const open = undecided(rules.answers, rules.group('annex_iii')).filter((id) => id !== CRITICAL_INFRASTRUCTURE);
  if (open.length > 0) return { obligations: [], missing: open };
  return { obligations: [rules.obligation('Article 49(5)', 'registration at national level (Annex III point 2)', 'provider', 'annex_iii_high_risk')], missing: [] };
}

/**
 * Article 49(3): before putting into service or using a high-risk system listed in Annex III, other
 * than one under point 2, a deployer that is a public authority, a Union institution, body, office
 * or agency, or a person acting on their behalf registers itself, selects the system and registers
 * its use in the EU database. Its own question: Article 27's also covers private entities providing
 * public services, and neither answer settles the other. Open answers are asked for only when they
 * alone could still tip it, as for Article 27.
 */
function deployerRegistration(rules: Rules, route: AnnexIIIRoute): { obligations: Obligation[]; missing: string[] } {
  const publicAuthority = rules.answers['art49_3_public_authority'];
  const inScope = route.points.some((q) => q.id !== CRITICAL_INFRASTRUCTURE);
  if (inScope && publicAuthority === 'yes') return { obligations: [rules.obligation('Article 49(3)', 'register as a deployer, select the system and register its use in the EU database, before putting it into service or using it', 'deployer', 'annex_iii_high_risk')], missing: [] };
  const openPoints = inScope ? [] : undecided(rules.answers, rules.group('annex_iii')).filter((id) => id !== CRITICAL_INFRASTRUCTURE);
  const couldBeInScope = inScope || openPoints.length > 0;
  return { obligations: [], missing: [...(publicAuthority === 'no' ? [] : openPoints), ...(couldBeInScope && !isDecided(publicAuthority) ? ['art49_3_public_authority'] : [])] };
}

/**
 * Article 27(1), for a system already high-risk under Article 6(2): before first use of one not
 * intended for the area of Annex III point 2, a deployer that is a body governed by public law or
 * a private entity providing public services, and any deployer of a system under Annex III point
 * 5(b) or 5(c), assesses the impact on fundamental rights. So it applies when 5(b) or 5(c) is yes,
 * or when the deployer is such a body and another point outside point 2 is yes; an open answer is
 * asked for only when it alone could still tip that.
 */
function fundamentalRightsAssessment(rules: Rules): { applies: boolean; missing: string[] } {
  const { answers } = rules;
  const otherPoints = rules.group('annex_iii').map((q) => q.id).filter((id) => id !== CRITICAL_INFRASTRUCTURE && !FRIA_WHATEVER_THE_DEPLOYER.includes(id));
  const publicBody = answers['art27_public_service'];
  const otherInScope = otherPoints.some((id) => answers[id] === 'yes');
  if (FRIA_WHATEVER_THE_DEPLOYER.some((id) => answers[id] === 'yes') || (publicBody === 'yes' && otherInScope)) return { applies: true, missing: [] };
  const openOther = otherInScope ? [] : otherPoints.filter((id) => !isDecided(answers[id]));
  const otherPossible = otherInScope || openOther.length > 0;
  return {
    applies: false,
    missing: [...FRIA_WHATEVER_THE_DEPLOYER.filter((id) => !isDecided(answers[id])), ...(publicBody === 'no' ? [] : openOther), ...(otherPossible && !isDecided(publicBody) ? ['art27_public_service'] : [])],
  };
}

/**
 * The obligations of a high-risk system by role. Whether it is also high-risk under Article 6(2)
 * decides the dates (Article 113: Article 6(1) systems later), registration and Article 27, so an
 * Annex I system whose Annex III answers are open gets those answers asked for. The Article 6(3)
 * derogation lifts only the Annex III route: an Annex I system stays high-risk without it.
 */
function highRiskObligations(rules: Rules, role: string, route: AnnexIIIRoute): { obligations: Obligation[]; missing: string[] } {
  // Annex III points left open do not matter when the derogation answers would lift any of them.
  const liftedIfListed = route.points.length === 0 && derogation(rules.answers).status === 'not-high';
  if (route.status === 'open' && !liftedIfListed) return { obligations: [], missing: route.missing };
  const underArticle6_2 = route.status === 'high';
  const datesKey = underArticle6_2 ? 'annex_iii_high_risk' : 'annex_i_high_risk';
  const obligations: Obligation[] = [];
  const missing: string[] = [];
  if (role !== 'deployer') {
    obligations.push(...HIGH_RISK_PROVIDER.map(([article, title]) => rules.obligation(article, title, 'provider', datesKey)));
    if (underArticle6_2) {
      const registered = registration(rules, route);
      obligations.push(...registered.obligations);
      missing.push(...registered.missing);
    }
  }
  if (role !== 'provider') {
    obligations.push(rules.obligation('Article 26', 'obligations of deployers of high-risk AI systems', 'deployer', datesKey));
    if (underArticle6_2) {
      const fria = fundamentalRightsAssessment(rules);
      if (fria.applies) obligations.push(rules.obligation('Article 27', 'fundamental rights impact assessment before first use', 'deployer', datesKey));
      const registered = deployerRegistration(rules, route);
      obligations.push(...registered.obligations);
      missing.push(...fria.missing, ...registered.missing);
    }
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
  const annexI = annexIRoute(rules);
  const annexIII = annexIIIRoute(rules);
  const matched = [...(annexI.status === 'high' ? matchesOf(yesTo(answers, rules.group('annex_i'))) : []), ...matchesOf(annexIII.points)];
  const found: Findings = { riskClass: '', matched, derogations: annexIII.considered === null ? [] : [annexIII.considered], obligations: [], missing: [] };
  const duties = transparencyDuties(rules);
  // Article 50 duties are listed whatever the class, so an open Article 50 answer always changes the obligations.
  const openTransparency = undecided(answers, rules.group('transparency'));
  const settle = (riskClass: string, missing: string[]): Findings => {
    const open = [...missing, ...openTransparency];
    return { ...found, riskClass: open.length > 0 ? 'INSUFFICIENT-DATA' : riskClass, missing: open };
  };
  if (annexI.status === 'high' || annexIII.status === 'high') {
    const { obligations, missing } = highRiskObligations(rules, role, annexIII);
    found.obligations.push(...obligations, ...(obligations.length > 0 ? duties : []));
    return settle('HIGH-RISK', missing);
  }
  const openHighRisk = [...annexI.missing, ...annexIII.missing];
  if (openHighRisk.length > 0) return settle('INSUFFICIENT-DATA', openHighRisk);
  // Article 6(4) and 49(2) follow the derogation only when no other route keeps the system high-risk.
  if (annexIII.points.length > 0)
    found.obligations.push(
      rules.obligation('Article 6(4)', 'document the assessment that the Annex III system is not high-risk before placing it on the market, and provide it on request', 'provider', 'annex_iii_high_risk'),
      rules.obligation('Article 49(2)', 'register the system in the EU database', 'provider', 'annex_iii_high_risk'),
    );
  found.obligations.push(...duties);
  if (duties.length === 0) return settle('MINIMAL-RISK', []);
  found.matched.push(...matchesOf(yesTo(answers, rules.group('transparency'))));
  return settle('LIMITED-RISK', []);
}

const PROHIBITIONS = 'prohibitions';
/** The Article 5 provision named for each date a practice is prohibited from: the Regulation's own points, and the point the Digital Omnibus adds, whose letter was not confirmed at the data date. */
const PROHIBITION_ARTICLES: Record<string, string> = {
  [PROHIBITIONS]: 'Article 5',
  omnibus_prohibition_intimate_content_csam: 'Article 5(1), the point added by the Digital Omnibus on AI (non-consensual sexual and intimate content, child sexual abuse material)',
};

/** The day a prohibition applies from, and its first second (00:00 UTC): the Omnibus's where it sets one (it added the practice), else the Regulation's. */
function prohibitedFrom(dates: Record<string, string>): { day: string; at: number } | undefined {
  const day = dates['digital_omnibus_on_ai'] ?? dates['regulation_2024_1689'];
  const at = day === undefined ? undefined : rfc3339Seconds(`${day}T00:00:00Z`);
  return day === undefined || at === undefined ? undefined : { day, at };
}

/**
 * One Article 5 obligation per date the matched practices are prohibited from. A practice is
 * prohibited whatever the date of the check, but a record made before that date says plainly
 * that the prohibition was not yet in force then (the date read from 00:00 UTC).
 */
function prohibitionObligations(rules: Rules, practices: Question[]): Obligation[] {
  const datesKeys = [...new Set(practices.map((q) => q.application_dates_key ?? PROHIBITIONS))];
  return datesKeys.map((datesKey) => {
    const obligation = rules.obligation(PROHIBITION_ARTICLES[datesKey] ?? 'Article 5', 'the practice may not be placed on the market, put into service or used', 'all', datesKey);
    const from = prohibitedFrom(rules.dates(datesKey));
    if (from === undefined || rules.now >= from.at) return obligation;
    return { ...obligation, status: `prohibited from ${from.day}, not yet in force at the time of the check` };
  });
}

function classifyAnswers(rules: Rules, role: string): Findings {
  const prohibited = rules.group('prohibited');
  const practices = yesTo(rules.answers, prohibited);
  if (practices.length > 0) return { riskClass: 'PROHIBITED', matched: matchesOf(practices), derogations: [], obligations: prohibitionObligations(rules, practices), missing: [] };
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
  const dates = (datesKey: string) => questionnaire.application_dates[datesKey] ?? {};
  const rules: Rules = {
    answers,
    group: (g) => questionnaire.questions.filter((q) => q.group === g),
    obligation: (article, title, who, datesKey) => ({ article, title, role: who, applies_from: dates(datesKey) }),
    dates,
    now,
  };
  const findings = classifyAnswers(rules, role);
  return complianceRecord({
    kind: 'compliance-snapshot',
    assessedAt: now,
    asset: input.asset,
    assessment: {
      ruleset: { id: COMPLIANCE_RULESET_ID, version: COMPLIANCE_RULESET_VERSION, regulation: questionnaire.regulation, amendments: questionnaire.amendments, data: [dataRef] },
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
        'not legal advice',
      ],
    },
  });
}
