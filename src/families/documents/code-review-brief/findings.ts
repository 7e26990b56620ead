import type { Group, RuleEntry, Severity } from './rules.ts';

export type Finding = {
  rule_id: string;
  group: Group;
  severity: Severity;
  cwe: string | null;
  file: string;
  line: number;
  column: number | null;
  message: string;
  tool: string;
};

export const finding = (rule: string, entry: RuleEntry, at: { file: string; line: number; column: number | null }, message: string, tool: string): Finding => ({
  rule_id: rule,
  group: entry.group,
  severity: entry.severity,
  cwe: entry.cwe,
  ...at,
  message,
  tool,
});
