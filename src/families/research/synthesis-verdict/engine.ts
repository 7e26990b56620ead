import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';

/**
 * The verdict's published rules: how much each block counts, how the blocks fold into one
 * score, and the words the score is given. All in the record's ruleset.
 */
export const VERDICT_RULESET = {
  id: 'synthesis-verdict',
  version: '2',
  signature_weight: { 'service-signed': 1, 'externally-signed': 0.8, unsigned: 0, 'signature-invalid': 0 },
  type_weight: { research: 1, quant: 1, audit: 1.5 },
  stance_value: { supports: 1, refutes: -1, neutral: 0 },
  default_strength: 0.5,
  duplicates: 'a block with the type, stance, content and signer of an earlier block counts once: the later ones are excluded (since version 2)',
  score: 'sum(weight * stance) / sum(weight), weight = signature_weight * type_weight * strength',
  disagreement: 'min(weight supporting, weight refuting) / (weight supporting + weight refuting)',
  verdicts: { CONTESTED: 'disagreement >= 0.35', SUPPORTED: 'score >= 0.5', REFUTED: 'score <= -0.5', INCONCLUSIVE: 'otherwise', 'INSUFFICIENT-DATA': 'fewer than 2 usable blocks (score withheld)' },
  likelihood_scale: 'IPCC AR5 calibrated language (Mastrandrea et al., 2010) applied to p = (score + 1) / 2',
} as const;

export const MIN_USABLE_BLOCKS = 2;
const CONTESTED_AT = 0.35;

export type SignatureStatus = keyof typeof VERDICT_RULESET.signature_weight;
export type BlockType = keyof typeof VERDICT_RULESET.type_weight;
export type Stance = keyof typeof VERDICT_RULESET.stance_value;

/** One block as the command hands it over: the caller's block with its signature already checked offline. */
export interface CheckedBlock {
  type: BlockType;
  stance: Stance;
  strength?: number | undefined;
  content: string;
  signature: { status: SignatureStatus; detail: string; key_family?: string | undefined; key_id?: string | undefined };
}

export interface VerdictInput {
  question: string;
  blocks: CheckedBlock[];
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** IPCC AR5 likelihood terms, on non-overlapping ranges of the probability. */
function likelihoodOf(p: number): string {
  if (p >= 0.99) return 'virtually certain';
  if (p >= 0.9) return 'very likely';
  if (p >= 0.66) return 'likely';
  if (p > 0.33) return 'about as likely as not';
  if (p > 0.1) return 'unlikely';
  if (p > 0.01) return 'very unlikely';
  return 'exceptionally unlikely';
}

/** Why a block counts for nothing: its signature, its empty content, or a weight that rounds to 0. */
function exclusionOf(block: VerdictInput['blocks'][number], strength: number): string {
  if (block.signature.status === 'unsigned' || block.signature.status === 'signature-invalid') return block.signature.detail;
  if (block.content.trim().length === 0) return 'no content';
  return `weight 0: strength ${strength} gives a weight below 0.0001 (weights are rounded to 4 decimals)`;
}

/** What makes two blocks the same evidence: the strength a caller gives is not part of it. */
const evidenceOf = (block: CheckedBlock): string => JSON.stringify([block.type, block.stance, block.content, block.signature.status, block.signature.key_id ?? null, block.signature.detail]);

export function foldVerdict(input: VerdictInput, now: number): JsonObject {
  const firstOf = new Map<string, number>();
  const weighed = input.blocks.map((block, index) => {
    const strength = block.strength ?? VERDICT_RULESET.default_strength;
    const evidence = evidenceOf(block);
    const duplicateOf = firstOf.get(evidence);
    if (duplicateOf === undefined) firstOf.set(evidence, index);
    const weight = round4(VERDICT_RULESET.signature_weight[block.signature.status] * VERDICT_RULESET.type_weight[block.type] * strength);
    const usable = duplicateOf === undefined && weight > 0 && block.content.trim().length > 0;
    return { index, block, strength, weight: usable ? weight : 0, usable, duplicateOf };
  });
  const usable = weighed.filter((w) => w.usable);
  const total = usable.reduce((s, w) => s + w.weight, 0);
  const towards = (stance: Stance) => usable.filter((w) => w.block.stance === stance).reduce((s, w) => s + w.weight, 0);
  const [supporting, refuting] = [towards('supports'), towards('refutes')];
  const blocks: JsonValue[] = weighed.map(({ index, block, strength, weight, usable: counts, duplicateOf }) => ({
    index,
    type: block.type,
    stance: block.stance,
    strength,
    weight,
    usable: counts,
    signature: { ...block.signature },
    ...(counts ? {} : { excluded_because: duplicateOf === undefined ? exclusionOf(block, strength) : `duplicate of block ${duplicateOf}: the same evidence counts once` }),
  }));
  const base = {
    kind: 'synthesis-verdict',
    ruleset: { ...VERDICT_RULESET },
    question: input.question,
    blocks,
    usable_blocks: usable.length,
    excluded: weighed.filter((w) => !w.usable).map((w) => ({ index: w.index, reason: blocks[w.index] && (blocks[w.index] as JsonObject)['excluded_because'] })) as JsonValue,
    evidence_source: 'caller-supplied',
    limitations: ['the stance and strength of each block are the caller\'s; the service checks signatures, not the truth of the content', 'the likelihood words map the weighted score to a probability by convention, not by a calibrated model'],
    composedAt: now,
  };
  if (usable.length < MIN_USABLE_BLOCKS || total === 0)
    return { ...base, verdict: 'INSUFFICIENT-DATA', outcome: 'INSUFFICIENT-DATA', score: null, disagreement: null, likelihood: null, reason: `${usable.length} usable block(s); at least ${MIN_USABLE_BLOCKS} are needed` };
  const score = round4((supporting - refuting) / total);
  const directional = supporting + refuting;
  const disagreement = directional === 0 ? 0 : round4(Math.min(supporting, refuting) / directional);
  const verdict = disagreement >= CONTESTED_AT ? 'CONTESTED' : score >= 0.5 ? 'SUPPORTED' : score <= -0.5 ? 'REFUTED' : 'INCONCLUSIVE';
  const probability = round4((score + 1) / 2);
  return { ...base, verdict, outcome: verdict, score, disagreement, likelihood: { probability, term: likelihoodOf(probability) } };
}
