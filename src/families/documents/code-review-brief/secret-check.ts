import { once } from '../../../kernel/once.ts';
import { finding, type Finding } from './findings.ts';
import { PRIVATE_KEY_RULE, SECRET_RULE } from './rules.ts';

/** secretlint and its rules load on the first review, not at every start of the service. */
const loadSecretlint = once(() =>
  Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]).then(([core, preset]) => ({
    lintSource: core.lintSource,
    config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator }] },
  })),
);

/** A secret is never repeated in the brief: its first four characters and its length only. */
export const maskSecret = (value: string): string => `${value.slice(0, 4)}… (${[...value].length} characters, masked)`;

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
