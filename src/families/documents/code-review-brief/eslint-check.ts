import { createRequire } from 'node:module';
import type * as EslintModule from 'eslint';
import type { ESLint, Linter } from 'eslint';
import { once } from '../../../kernel/once.ts';
import { finding, type Finding } from './findings.ts';
import { ESLINT_RULES, NEUTRAL_RULES } from './rules.ts';

const JS = /\.(?:js|mjs|cjs|jsx)$/i;
const TS = /\.(?:ts|mts|cts|tsx)$/i;
export const isLintable = (path: string) => JS.test(path) || TS.test(path);

const rules = Object.fromEntries(Object.keys(ESLINT_RULES).map((id) => [id, 'warn' as const]));
const parserOptions = { ecmaFeatures: { jsx: true } };

/**
 * ESLint, its security plugin and above all the TypeScript parser (which brings the TypeScript
 * compiler: about 0.6 s and 70 MB) would be loaded by every start of the service for an
 * operation few calls use. They are loaded on first use instead: ESLint and the plugin at the
 * first review, the parser at the first TypeScript file (ESLint calls parseForESLint, which is
 * all a parser needs).
 */
const requireFromHere = createRequire(import.meta.url);
type ParserForESLint = { parseForESLint(text: string, options?: Linter.ParserOptions): Linter.ESLintParseResult };
const typescriptParser = once(() => requireFromHere('@typescript-eslint/parser') as ParserForESLint);
const tsParser: Linter.Parser = {
  meta: { name: '@typescript-eslint/parser' },
  parseForESLint: (text: string, options?: Linter.ParserOptions) => typescriptParser().parseForESLint(text, options),
};
const eslintOnce = once((): { linter: Linter; config: Linter.Config[] } => {
  const { Linter: LinterClass } = requireFromHere('eslint') as typeof EslintModule;
  const security = requireFromHere('eslint-plugin-security') as ESLint.Plugin;
  // Flat config, in memory: no configuration file is looked up, no plugin is loaded from disk by name.
  const config: Linter.Config[] = [
    { files: ['**/*.js', '**/*.mjs', '**/*.cjs', '**/*.jsx'], languageOptions: { ecmaVersion: 'latest', sourceType: 'module', parserOptions }, plugins: { security }, rules },
    { files: ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.tsx'], languageOptions: { parser: tsParser, parserOptions }, plugins: { security }, rules },
  ];
  return { linter: new LinterClass({ configType: 'flat' }), config };
});

export interface LintResult {
  findings: Finding[];
  parsed: boolean;
}

/** ESLint's Linter on one file's text: security, correctness and style rules of the table. */
export function lintFile(path: string, content: string): LintResult {
  // A relative name keeps ESLint's file matching inside its virtual working directory.
  const filename = path.replace(/^\/+/, '') || 'file.js';
  const { linter, config } = eslintOnce();
  const messages = linter.verify(content, config, { filename });
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
