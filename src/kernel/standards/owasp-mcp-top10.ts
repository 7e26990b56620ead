/**
 * The OWASP Top 10 for Model Context Protocol, version v0.1 (2025, beta), as published by the
 * OWASP MCP Top 10 project (owasp.org/www-project-mcp-top-10). Ids as the list numbers them.
 */
export const OWASP_MCP_TOP10_VERSION = 'OWASP Top 10 for MCP v0.1 (2025, beta)';

export const OWASP_MCP_TOP10 = {
  MCP01: 'Token Mismanagement & Secret Exposure',
  MCP02: 'Privilege Escalation via Scope Creep',
  MCP03: 'Tool Poisoning',
  MCP04: 'Software Supply Chain Attacks & Dependency Tampering',
  MCP05: 'Command Injection & Execution',
  MCP06: 'Intent Flow Subversion',
  MCP07: 'Insufficient Authentication & Authorization',
  MCP08: 'Lack of Audit and Telemetry',
  MCP09: 'Shadow MCP Servers',
  MCP10: 'Context Injection & Over-Sharing',
} as const;

export type OwaspMcpId = keyof typeof OWASP_MCP_TOP10;
