import { describe, expect, it } from 'vitest';
import type { Finding } from './findings.ts';
import { reviewCode, STATEMENT, type CodeReviewInput } from './engine.ts';
import { parseUnifiedDiff } from './unified-diff.ts';

const GITHUB_TOKEN = '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';
type Reviewed = { record: { utility_result: { outcome: string; findings: Finding[]; notes: string[]; statement: string } }; beside: { output: string } };
const review = async (input: CodeReviewInput) => (await reviewCode(input, 1_790_000_000)) as unknown as Reviewed;
const rules = (r: Reviewed) => r.record.utility_result.findings.map((f) => `${f.file}:${f.line} ${f.rule_id}`);

describe('code review brief', () => {
  it('flags eval in JavaScript as a security concern with CWE-95, and says it is static analysis, not a human review', async () => {
    const r = await review({ files: [{ path: 'src/run.js', content: 'export function run(code) {\n  return eval(code);\n}\n' }] });
    const evalFinding = r.record.utility_result.findings.find((f) => f.rule_id === 'no-eval');
    expect(evalFinding).toMatchObject({ group: 'security', severity: 'high', cwe: 'CWE-95', file: 'src/run.js', line: 2 });
    expect(r.record.utility_result.outcome).toBe('SECURITY-CONCERNS');
    expect(r.record.utility_result.statement).toBe(STATEMENT);
    expect(r.beside.output).toContain('not a human review');
    expect(r.beside.output).toMatch(/## Security concerns \(\d+\)[\s\S]*## Issues[\s\S]*## Suggestions/);
  });

  it('lints TypeScript with its parser: child processes and unsafe regular expressions, typed code parses', async () => {
    const content = "import { exec } from 'node:child_process';\nconst pattern: RegExp = /^(a+)+$/;\nexport const start = (cmd: string): void => { exec(cmd); };\n";
    const r = await review({ files: [{ path: 'src/start.ts', content }] });
    expect(rules(r)).toEqual(expect.arrayContaining(['src/start.ts:2 security/detect-unsafe-regex']));
    expect(rules(r).some((x) => x.includes('parse-error'))).toBe(false);
  });

  it('finds a token and a private key in any file and never repeats them', async () => {
    const yaml = `github:\n  token: ${GITHUB_TOKEN}\n`;
    const r = await review({ files: [{ path: 'deploy/config.yml', content: yaml }] });
    const secret = r.record.utility_result.findings.find((f) => f.rule_id === 'secretlint/github');
    expect(secret).toMatchObject({ group: 'security', cwe: 'CWE-798', line: 2 });
    expect(JSON.stringify(r.record)).not.toContain(GITHUB_TOKEN);
    expect(r.beside.output).not.toContain(GITHUB_TOKEN);
    expect(secret!.message).toContain('ghp_… (40 characters, masked)');
    expect(r.record.utility_result.notes).toEqual(['deploy/config.yml: not a JavaScript or TypeScript file: secrets and language-neutral checks only']);
  });

  it('reports a syntax error as a finding, not a crash, and a merge-conflict marker as an issue', async () => {
    const r = await review({ files: [{ path: 'broken.js', content: 'function (\n' }, { path: 'notes.md', content: 'a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> feature\n' }] });
    expect(rules(r)).toEqual(expect.arrayContaining(['broken.js:1 parse-error', 'notes.md:2 neutral/merge-conflict-marker', 'notes.md:4 neutral/merge-conflict-marker', 'notes.md:6 neutral/merge-conflict-marker']));
  });

  it('reviews a diff by its added lines only, with their line numbers in the new file', async () => {
    const diff = [
      'diff --git a/src/app.js b/src/app.js',
      '--- a/src/app.js',
      '+++ b/src/app.js',
      '@@ -10,4 +10,5 @@ export function handler(input) {',
      '   const value = input.value;',
      '-  return value;',
      '+  // TODO: remove eval',
      '+  return eval(value);',
      '   // eval(old) in a comment is context, not a change',
      ' }',
      '',
    ].join('\n');
    expect(parseUnifiedDiff(diff)[0]!.added).toEqual(new Map([[11, '  // TODO: remove eval'], [12, '  return eval(value);']]));
    const r = await review({ diff });
    expect(rules(r)).toEqual(expect.arrayContaining(['src/app.js:12 no-eval', 'src/app.js:11 neutral/todo-marker']));
    expect(r.record.utility_result.findings.every((f) => f.line === 11 || f.line === 12)).toBe(true);
  });

  it('gives the same record for the same input', async () => {
    const input = { files: [{ path: 'a.js', content: 'var x = 1; if (x == 2) { debugger; }\n' }] };
    expect((await review(input)).record).toEqual((await review(input)).record);
  });
});
