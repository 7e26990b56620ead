/**
 * The published rule table: for every rule the brief reports, its group, severity and CWE where
 * one applies. Rules of the tools that are not listed here are not enabled.
 */
export type Group = 'security' | 'issue' | 'suggestion';
export type Severity = 'high' | 'medium' | 'low' | 'info';

export interface RuleEntry {
  group: Group;
  severity: Severity;
  cwe: string | null;
}

const security = (severity: Severity, cwe: string | null): RuleEntry => ({ group: 'security', severity, cwe });
const issue = (severity: Severity): RuleEntry => ({ group: 'issue', severity, cwe: null });
const suggestion = (severity: Severity = 'info', cwe: string | null = null): RuleEntry => ({ group: 'suggestion', severity, cwe });

/** ESLint core rules and eslint-plugin-security rules enabled for JavaScript and TypeScript. */
export const ESLINT_RULES: Record<string, RuleEntry> = {
  'no-eval': security('high', 'CWE-95'),
  'no-implied-eval': security('high', 'CWE-95'),
  'no-new-func': security('high', 'CWE-95'),
  'no-script-url': security('medium', 'CWE-79'),
  'security/detect-eval-with-expression': security('high', 'CWE-95'),
  'security/detect-child-process': security('medium', 'CWE-78'),
  'security/detect-non-literal-fs-filename': security('medium', 'CWE-22'),
  'security/detect-non-literal-require': security('medium', 'CWE-829'),
  'security/detect-unsafe-regex': security('medium', 'CWE-1333'),
  'security/detect-non-literal-regexp': security('low', 'CWE-1333'),
  'security/detect-pseudoRandomBytes': security('medium', 'CWE-338'),
  'security/detect-possible-timing-attacks': security('low', 'CWE-208'),
  'security/detect-no-csrf-before-method-override': security('medium', 'CWE-352'),
  'security/detect-buffer-noassert': security('medium', 'CWE-125'),
  'security/detect-new-buffer': security('medium', 'CWE-908'),
  'security/detect-disable-mustache-escape': security('high', 'CWE-79'),
  'security/detect-bidi-characters': security('high', 'CWE-451'),
  'security/detect-invisible-characters': security('medium', 'CWE-451'),
  'security/detect-object-injection': suggestion('low', 'CWE-915'),
  'no-unreachable': issue('medium'),
  'no-dupe-keys': issue('medium'),
  'no-dupe-else-if': issue('medium'),
  'no-duplicate-case': issue('medium'),
  'no-self-compare': issue('medium'),
  'no-self-assign': issue('low'),
  'no-unsafe-finally': issue('medium'),
  'no-unsafe-negation': issue('medium'),
  'no-fallthrough': issue('low'),
  'no-cond-assign': issue('medium'),
  'no-constant-condition': issue('low'),
  'no-compare-neg-zero': issue('low'),
  'use-isnan': issue('medium'),
  'valid-typeof': issue('medium'),
  'no-sparse-arrays': issue('low'),
  eqeqeq: suggestion('low'),
  'no-var': suggestion(),
  'prefer-const': suggestion(),
  'no-empty': suggestion(),
  'no-debugger': suggestion('low'),
};

/** Language-neutral checks, every file. */
export const NEUTRAL_RULES: Record<string, RuleEntry> = {
  'neutral/merge-conflict-marker': issue('high'),
  'neutral/todo-marker': suggestion(),
  'neutral/long-line': suggestion(),
  'parse-error': issue('high'),
};

/** Secret detection: every secretlint rule of the recommended preset counts as a hard-coded credential. */
export const SECRET_RULE: RuleEntry = security('high', 'CWE-798');
export const PRIVATE_KEY_RULE: RuleEntry = security('high', 'CWE-321');

export const LONG_LINE = 200;
