import tsParser from '@typescript-eslint/parser';
import { Linter } from 'eslint';
import security from 'eslint-plugin-security';
import { finding, type Finding } from './findings.ts';
import { ESLINT_RULES, NEUTRAL_RULES } from './rules.ts';

const JS = /\.(?:js|mjs|cjs|jsx)$/i;
const TS = /\.(?:ts|mts|cts|tsx)$/i;
export const isLintable = (path: string) => JS.test(path) || TS.test(path);

const rules = Object.fromEntries(Object.keys(ESLINT_RULES).map((id) => [id, 'warn' as const]));
const parserOptions = { ecmaFeatures: { jsx: true } };
/** Flat config, in memory: no configuration file is looked up, no plugin is loaded from disk by name. */
const CONFIG: Linter.Config[] = [
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs', '**/*.jsx'], languageOptions: { ecmaVersion: 'latest', sourceType: 'module', parserOptions }, plugins: { security }, rules },
  { files: ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.tsx'], languageOptions: { parser: tsParser, parserOptions }, plugins: { security }, rules },
];
const linter = new Linter({ configType: 'flat' });

export interface LintResult {
  findings: Finding[];
  parsed: boolean;
}

/** ESLint's Linter on one file's text: security, correctness and style rules of the table. */
export function lintFile(path: string, content: string): LintResult {
  // A relative name keeps ESLint's file matching inside its virtual working directory.
  const filename = path.replace(/^\/+/, '') || 'file.js';
  const messages = linter.verify(content, CONFIG, { filename });
  const findings: Finding[] = [];
  let parsed = true;
  for (const m of messages) {
    if (m.fatal || m.ruleId === null) {
      parsed = false;
      findings.push(finding('parse-error', NEUTRAL_RULES['parse-error']!, { file: path, line: m.line, column: m.column }, `not parsed: ${m.message}`, 'eslint'));
      continue;
    }
    const entry = ESLINT_RULES[m.ruleId];
    if (entry) findings.push(finding(m.ruleId, entry, { file: path, line: m.line, column: m.column }, m.message, m.ruleId.startsWith('security/') ? 'eslint-plugin-security' : 'eslint'));
  }
  return { findings, parsed };
}
