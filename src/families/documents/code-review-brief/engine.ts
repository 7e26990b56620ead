import { createRequire } from 'node:module';
import type { CommandResult } from '../../../kernel/operation.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { isLintable, lintFile } from './eslint-check.ts';
import type { Finding } from './findings.ts';
import { neutralChecks } from './neutral-checks.ts';
import { ESLINT_RULES, LONG_LINE, NEUTRAL_RULES, type Group } from './rules.ts';
import { findSecrets } from './secret-check.ts';
import { parseUnifiedDiff } from './unified-diff.ts';

export const CODE_REVIEW_ID = 'utils.code-review-brief';
export const MAX_FINDINGS = 500;
export const STATEMENT = 'Static analysis by published rule sets, not a human review: it finds patterns, not intent, and a clean brief does not mean the code is safe.';

export interface CodeReviewInput {
  files?: Array<{ path: string; content: string }> | undefined;
  diff?: string | undefined;
}

const requireFromHere = createRequire(import.meta.url);
const packageVersion = (name: string): string => (requireFromHere(`${name}/package.json`) as { version: string }).version;
/** The tools that did the work, by their installed versions: the same versions give the same brief. */
export const TOOLS = [
  { name: 'eslint', version: packageVersion('eslint') },
  { name: 'eslint-plugin-security', version: packageVersion('eslint-plugin-security') },
  { name: '@typescript-eslint/parser', version: packageVersion('@typescript-eslint/parser') },
  { name: '@secretlint/core', version: packageVersion('@secretlint/core') },
  { name: '@secretlint/secretlint-rule-preset-recommend', version: packageVersion('@secretlint/secretlint-rule-preset-recommend') },
];

interface Target {
  path: string;
  content: string;
  /** For a diff: the added lines, the only ones reported. */
  changed?: ReadonlySet<number>;
}

const GROUP_ORDER: Record<Group, number> = { security: 0, issue: 1, suggestion: 2 };
const SEVERITY_ORDER = { high: 0, medium: 1, low: 2, info: 3 };
const byImportance = (a: Finding, b: Finding) =>
  GROUP_ORDER[a.group] - GROUP_ORDER[b.group] || SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || (a.column ?? 0) - (b.column ?? 0) || (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0);

async function reviewTarget(target: Target, notes: string[]): Promise<Finding[]> {
  const found = [...neutralChecks(target.path, target.content), ...(await findSecrets(target.path, target.content))];
  if (isLintable(target.path)) {
    const lint = lintFile(target.path, target.content);
    if (target.changed && !lint.parsed) notes.push(`${target.path}: not linted: the hunks of the diff do not form a file the parser reads; secrets and language-neutral checks ran`);
    found.push(...lint.findings.filter((f) => !(target.changed && f.rule_id === 'parse-error')));
  } else notes.push(`${target.path}: not a JavaScript or TypeScript file: secrets and language-neutral checks only`);
  return target.changed ? found.filter((f) => target.changed!.has(f.line)) : found;
}

function targetsOf(input: CodeReviewInput, notes: string[]): Target[] {
  if (input.files) return input.files.map((f) => ({ path: f.path, content: f.content }));
  return parseUnifiedDiff(input.diff ?? '').flatMap((file) => {
    if (file.deleted) {
      notes.push(`${file.path}: deleted by the diff: nothing to review`);
      return [];
    }
    return [{ path: file.path, content: file.partialContent, changed: new Set(file.added.keys()) }];
  });
}

const GROUP_TITLES: Array<[Group, string]> = [
  ['security', 'Security concerns'],
  ['issue', 'Issues'],
  ['suggestion', 'Suggestions'],
];

/** The brief a developer reads: grouped, most important first, the statement of what it is on top. */
function briefText(findings: Finding[], reviewed: string[], notes: string[], truncated: number): string {
  const lines = ['# Code review brief', '', `> ${STATEMENT}`, '', `Files reviewed: ${reviewed.length === 0 ? 'none' : reviewed.join(', ')}`, ''];
  for (const [group, title] of GROUP_TITLES) {
    const inGroup = findings.filter((f) => f.group === group);
    lines.push(`## ${title} (${inGroup.length})`, '');
    for (const f of inGroup) lines.push(`- **${f.severity}** \`${f.file}:${f.line}\` ${f.rule_id}${f.cwe ? ` (${f.cwe})` : ''}: ${f.message}`);
    if (inGroup.length === 0) lines.push('- none found');
    lines.push('');
  }
  if (truncated > 0) lines.push(`${truncated} further finding(s) not listed: the brief lists at most ${MAX_FINDINGS}.`, '');
  if (notes.length > 0) lines.push('## Notes', '', ...notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}

/**
 * Reviews the supplied files, or the added lines of a unified diff: ESLint (security, correctness
 * and style rules of the table) for JavaScript and TypeScript, secretlint for secrets in every
 * file, and language-neutral checks. Deterministic for the same input and tool versions.
 */
export async function reviewCode(input: CodeReviewInput, now: number): Promise<CommandResult> {
  const notes: string[] = [];
  const targets = targetsOf(input, notes);
  const all = (await Promise.all(targets.map((t) => reviewTarget(t, notes)))).flat().sort(byImportance);
  notes.sort();
  const findings = all.slice(0, MAX_FINDINGS);
  const count = (group: Group) => all.filter((f) => f.group === group).length;
  const summary = { security: count('security'), issues: count('issue'), suggestions: count('suggestion'), listed: findings.length };
  const outcome = summary.security > 0 ? 'SECURITY-CONCERNS' : summary.issues > 0 ? 'ISSUES' : summary.suggestions > 0 ? 'SUGGESTIONS-ONLY' : 'NO-FINDINGS';
  const reviewed = targets.map((t) => t.path);
  return utilityReceipt({
    utility: CODE_REVIEW_ID,
    now,
    input: canonicalText(input),
    output: { content: briefText(findings, reviewed, notes, all.length - findings.length), mediaType: 'text/markdown; charset=utf-8' },
    ruleset: { id: 'code-review-brief', version: '1' },
    findings: {
      outcome,
      statement: STATEMENT,
      scope: input.diff !== undefined ? 'added lines of the diff' : 'whole files',
      files_reviewed: reviewed,
      summary,
      findings,
      notes,
      tools: TOOLS,
      rules: { eslint: Object.keys(ESLINT_RULES), neutral: Object.keys(NEUTRAL_RULES), secrets: 'secretlint-rule-preset-recommend', long_line: LONG_LINE },
      evidence_source: 'caller-supplied',
    },
  });
}
