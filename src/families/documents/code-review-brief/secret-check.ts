import { once } from '../../../kernel/once.ts';
import { finding, type Finding } from './findings.ts';
import { PRIVATE_KEY_RULE, SECRET_RULE } from './rules.ts';
import { sliceWholeCharacters } from '../../../kernel/whole-characters.ts';

/** secretlint and its rules load on the first review, not at every start of the service. */
const loadSecretlint = once(() =>
  Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend'), import('@secretlint/profiler')]).then(([core, preset, profiler]) => {
    silenceProfiler(profiler.secretLintProfiler);
    return {
      lintSource: core.lintSource,
      config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator }] },
    };
  }),
);

/**
 * secretlint (11.x) profiles every lint, for its command line's --profile: each file leaves some
 * 36 marks in the process-wide performance timeline, which nothing clears (about 6.6 KB of heap
 * a review, for the life of the process), and a file name holding `::end` makes its observer
 * measure from a mark that does not exist, an unhandled rejection that ends the process. Its
 * marks are turned off, as secretlint itself does from 13.0.5 unless --profile is given (that
 * version needs Node 22).
 */
function silenceProfiler(profiler: { mark(marker: unknown): void }): void {
  profiler.mark = () => {};
}

/** A secret is never repeated in the brief: its first four characters and its length only. */
export const maskSecret = (value: string): string => `${sliceWholeCharacters(value, 4)}… (${[...value].length} characters, masked)`;

/** secretlint's recommended rule set on one file; every message is rebuilt without the secret. */
export async function findSecrets(path: string, content: string): Promise<Finding[]> {
  const { lintSource, config } = await loadSecretlint();
  const result = await lintSource({ source: { filePath: `/${path.replace(/^\/+/, '')}`, content, contentType: 'text' }, options: { config } });
  return result.messages.map((m) => {
    const value = content.slice(m.range[0], m.range[1]);
    const data = (m.data ?? {}) as Record<string, unknown>;
    const kind = typeof data['typeName'] === 'string' ? data['typeName'] : m.messageId;
    const entry = m.ruleId.endsWith('privatekey') ? PRIVATE_KEY_RULE : SECRET_RULE;
    return finding(m.ruleId.replace('@secretlint/secretlint-rule-', 'secretlint/'), entry, { file: path, line: m.loc.start.line, column: m.loc.start.column + 1 }, `hard-coded secret (${kind}): ${maskSecret(value)}`, 'secretlint');
  });
}
