import type { OwaspMcpId } from '../../../kernel/standards/owasp-mcp-top10.ts';

export type Stride = 'Spoofing' | 'Tampering' | 'Repudiation' | 'Information disclosure' | 'Denial of service' | 'Elevation of privilege';
export type Level = 'low' | 'medium' | 'high';

export interface ThreatRule {
  id: string;
  stride: Stride;
  title: string;
  likelihood: Level;
  impact: Level;
  mitigations: string[];
  owasp_mcp: OwaspMcpId[];
  cwe: string[];
}

/**
 * The published rule table: what raises each threat is in the code that applies it; likelihood,
 * impact, mitigations and mappings are here, and go into every record's ruleset.
 */
export const THREAT_RULES = {
  destructive: { id: 'TM-01', stride: 'Tampering', title: 'The tool changes or deletes state on the model\'s say-so', likelihood: 'medium', impact: 'high', mitigations: ['require human confirmation for destructive calls', 'scope credentials to the least privilege the tool needs', 'make the change reversible or idempotent'], owasp_mcp: ['MCP02'], cwe: ['CWE-285'] },
  openWorldOutput: { id: 'TM-02', stride: 'Elevation of privilege', title: 'Content from outside the trust boundary reaches the model (indirect prompt injection)', likelihood: 'high', impact: 'medium', mitigations: ['treat tool output as untrusted data, never as instructions', 'strip or fence markup and instructions in returned content', 'do not let output of one tool trigger destructive tools without confirmation'], owasp_mcp: ['MCP06', 'MCP10'], cwe: ['CWE-1427'] },
  urlInput: { id: 'TM-03', stride: 'Information disclosure', title: 'A caller-chosen URL is fetched by the server (SSRF)', likelihood: 'medium', impact: 'high', mitigations: ['allow-list destinations', 'block private, loopback and metadata addresses after DNS resolution', 'no redirects to other hosts'], owasp_mcp: ['MCP10'], cwe: ['CWE-918'] },
  pathInput: { id: 'TM-04', stride: 'Information disclosure', title: 'A caller-chosen file path (path traversal)', likelihood: 'medium', impact: 'high', mitigations: ['resolve against a fixed root and refuse paths that leave it', 'no symlinks out of the root'], owasp_mcp: ['MCP10'], cwe: ['CWE-22'] },
  commandInput: { id: 'TM-05', stride: 'Elevation of privilege', title: 'A caller-chosen command, script, code or query is executed', likelihood: 'high', impact: 'high', mitigations: ['never pass model output to a shell or interpreter', 'use parameterised queries and fixed command lists', 'run in a sandbox without network or secrets'], owasp_mcp: ['MCP05'], cwe: ['CWE-78', 'CWE-89', 'CWE-94'] },
  unboundedInput: { id: 'TM-06', stride: 'Denial of service', title: 'Inputs without size bounds', likelihood: 'medium', impact: 'medium', mitigations: ['declare maxLength, maxItems and maximum in the input schema', 'enforce them server-side', 'rate-limit per caller'], owasp_mcp: ['MCP10'], cwe: ['CWE-770'] },
  unaudited: { id: 'TM-07', stride: 'Repudiation', title: 'A state-changing call that is not idempotent leaves no declared audit trail', likelihood: 'medium', impact: 'medium', mitigations: ['log every call with caller, arguments digest and result', 'sign or hash-chain the log', 'accept an idempotency key'], owasp_mcp: ['MCP08'], cwe: ['CWE-778'] },
  poisonedDescription: { id: 'TM-08', stride: 'Spoofing', title: 'The tool description carries instructions to the model (tool poisoning)', likelihood: 'high', impact: 'high', mitigations: ['review and pin tool descriptions', 'alert when a description changes', 'show descriptions to the user before enabling the tool'], owasp_mcp: ['MCP03'], cwe: ['CWE-1427'] },
  secretInput: { id: 'TM-09', stride: 'Information disclosure', title: 'Secrets pass through the model\'s context as tool arguments', likelihood: 'medium', impact: 'high', mitigations: ['keep credentials in the server, never in arguments', 'use short-lived scoped tokens', 'redact secrets from logs'], owasp_mcp: ['MCP01'], cwe: ['CWE-522'] },
  unauthenticated: { id: 'TM-10', stride: 'Spoofing', title: 'An operation that needs no authentication', likelihood: 'high', impact: 'high', mitigations: ['require authentication on every state-changing operation', 'authorise per object'], owasp_mcp: ['MCP07'], cwe: ['CWE-306'] },
} as const satisfies Record<string, ThreatRule>;

export const LEVEL_SCORE: Record<Level, number> = { low: 1, medium: 2, high: 3 };
