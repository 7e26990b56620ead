import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256, sha256Hex } from '../../../signing/hash.ts';
import { NeedleSet } from './needles.ts';
import { OWASP_MCP_TOP10, OWASP_MCP_TOP10_VERSION, type OwaspMcpId } from '../../../kernel/standards/owasp-mcp-top10.ts';

/**
 * Permission-sprawl threat model of one MCP tool manifest (a tools/list result), rule
 * `tool-permission/1`. Only what the manifest declares is read: `permissions` and `scopes` of
 * each tool, of its `annotations`, and of the manifest itself (server-wide). Nothing is inferred
 * from what a tool might do.
 *
 * Level: MINIMAL when no permission is declared anywhere; otherwise the highest finding
 * severity (LOW when nothing declared is risky). CRITICAL needs an ownership proof of the server:
 * without one the level is capped at HIGH, the cap is recorded, and a proof is recommended.
 */
// 2 (2026-11-27): one cross-tool-reference finding per tool naming the tools it refers to, one
// hidden-instructions finding per tool and kind of marker; 199 tools made 199,000 findings.
export const TOOL_PERMISSION_RULESET = { id: 'tool-permission', version: '2' } as const;
export const RISK_LEVELS = ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];
type Severity = 'low' | 'medium' | 'high' | 'critical';
const LEVEL_OF: Record<Severity, RiskLevel> = { low: 'LOW', medium: 'MEDIUM', high: 'HIGH', critical: 'CRITICAL' };

export interface ManifestTool {
  name: string;
  description?: string | undefined;
  inputSchema?: JsonObject | undefined;
  permissions?: string[] | undefined;
  scopes?: string[] | undefined;
  annotations?: { permissions?: string[] | undefined; scopes?: string[] | undefined } | undefined;
}

export interface OwnershipProof {
  method: string;
  subject: string;
  evidence: string;
}

export interface ToolPermissionInput {
  manifest: { tools: readonly ManifestTool[]; permissions?: string[] | undefined; scopes?: string[] | undefined };
  /** Tool names exposed by the agent's other servers: a same-named tool here shadows one of them. */
  other_tool_names?: readonly string[] | undefined;
  ownership_proof?: OwnershipProof | undefined;
}

export const PERMISSION_CATEGORIES = ['file', 'network', 'execution', 'secrets'] as const;
type Category = (typeof PERMISSION_CATEGORIES)[number];
const CATEGORY_WORDS: Record<Category, readonly string[]> = {
  file: ['file', 'files', 'fs', 'filesystem', 'disk', 'path', 'paths', 'dir', 'directory', 'folder', 'storage'],
  network: ['net', 'network', 'http', 'https', 'fetch', 'url', 'internet', 'socket', 'dns', 'web', 'egress', 'outbound'],
  execution: ['exec', 'execute', 'shell', 'spawn', 'command', 'commands', 'cmd', 'subprocess', 'terminal', 'bash', 'sh', 'run'],
  secrets: ['secret', 'secrets', 'credential', 'credentials', 'token', 'tokens', 'key', 'keys', 'apikey', 'password', 'passwords', 'env', 'vault', 'keychain'],
};
const WRITE_WORDS = ['write', 'delete', 'modify', 'remove', 'create', 'update'];
const BROAD_WORDS = ['admin', 'root', 'sudo', 'superuser', 'owner', 'full', 'unrestricted'];
const BROAD_TARGET = /(^|[:=\s])(\/|~|~\/|\/home|\/etc|c:\\?|0\.0\.0\.0\/0)$/i;

export interface DeclaredPermission {
  tool: string | null;
  source: string;
  value: string;
  categories: Category[];
  wildcard: boolean;
  overBroad: boolean;
  write: boolean;
}

export function classifyPermission(value: string): Pick<DeclaredPermission, 'categories' | 'wildcard' | 'overBroad' | 'write'> {
  const lower = value.toLowerCase();
  const words = lower.split(/[^a-z0-9]+/).filter((w) => w.length > 0);
  const has = (list: readonly string[]) => words.some((w) => list.includes(w));
  const namesProcesses = words.some((w) => /^proc(ess(es)?)?$/.test(w));
  return {
    categories: PERMISSION_CATEGORIES.filter((c) => has(CATEGORY_WORDS[c]) || (c === 'execution' && namesProcesses)),
    wildcard: lower.includes('*') || words.includes('all') || words.includes('any'),
    overBroad: has(BROAD_WORDS) || BROAD_TARGET.test(lower.trim()),
    write: has(WRITE_WORDS),
  };
}

/**
 * Markers of instructions aimed at the model rather than the user (tool poisoning). Each is run on
 * every model-facing text, so each must take time linear in the text: no two neighbouring
 * quantified parts may match the same characters (the tag pattern's `\s*\/?\s*` did, and
 * '<' and 40,000 spaces held the event loop 3.4 s), and a pattern that searches for a closing
 * delimiter is a test of two `indexOf`s instead.
 */
export const INSTRUCTION_TAG = /<\s*(?:\/\s*)?(important|system|instructions?|secret|hidden)\s*>/i;
const HIDDEN_INSTRUCTION_MARKERS: ReadonlyArray<{ name: string; test: (text: string) => boolean }> = [
  { name: 'instruction tag', test: matches(INSTRUCTION_TAG) },
  { name: 'override of earlier instructions', test: matches(/\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(previous|prior|above|earlier|other)\s+(instructions|prompts?|rules)/i) },
  { name: 'concealment from the user', test: matches(/\b(do not|don't|never)\s+(tell|inform|mention|reveal|show|notify|alert)\b/i) },
  { name: 'precondition on tool use', test: matches(/\b(before|prior to)\s+(using|calling|invoking)\s+(this|any|the)\s+(other\s+)?tool/i) },
  { name: 'sensitive file reference', test: matches(/(~\/\.ssh|id_rsa|id_ed25519|\/etc\/passwd|\/etc\/shadow|\.env\b|\.aws\/credentials|mcp\.json)/i) },
  { name: 'role or prompt manipulation', test: matches(/\b(system prompt|you are now|act as the system)\b/i) },
  { name: 'invisible characters', test: matches(/[\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/) },
  { name: 'HTML comment', test: hasHtmlComment },
];

function matches(pattern: RegExp): (text: string) => boolean {
  return (text) => pattern.test(text);
}

/**
 * What /<!--[\s\S]*?-->/ tests: a "-->" after some "<!--". The first opening leaves the most
 * room, so one search for it and one for a closing after it decide. The regex, tried from every
 * "<!--", took time quadratic in a text of repeated openings (10 s for 200,000 characters).
 */
export function hasHtmlComment(text: string): boolean {
  const open = text.indexOf('<!--');
  return open >= 0 && text.indexOf('-->', open + 4) >= 0;
}

/**
 * Most characters of model-facing text one manifest may carry, over all its tools (descriptions,
 * and descriptions and titles anywhere in input schemas, which have no length limit of their own):
 * every marker and the cross-tool check read all of it, so this bounds the call. Refused before
 * the quote (model_text_too_long).
 */
export const MODEL_TEXT_MAX_CHARS = 200_000;

/** Characters of model-facing text in the whole manifest. */
export function modelFacingLength(tools: readonly ManifestTool[]): number {
  let total = 0;
  for (const tool of tools) for (const text of modelFacingTexts(tool)) total += text.length;
  return total;
}

/** Every string a model reads from a tool: its description and every description or title in its input schema. */
export function modelFacingTexts(tool: ManifestTool): string[] {
  const texts = tool.description === undefined ? [] : [tool.description];
  const walk = (v: JsonValue | undefined) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object')
      for (const [k, sub] of Object.entries(v)) {
        if ((k === 'description' || k === 'title') && typeof sub === 'string') texts.push(sub);
        else walk(sub);
      }
  };
  walk(tool.inputSchema);
  return texts;
}

const normaliseName = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

interface Finding {
  rule: string;
  severity: Severity;
  tool: string | null;
  detail: string;
  owasp: OwaspMcpId[];
}

function declarationsOf(input: ToolPermissionInput): DeclaredPermission[] {
  const out: DeclaredPermission[] = [];
  const add = (tool: string | null, source: string, values: readonly string[] | undefined) => {
    for (const value of values ?? []) out.push({ tool, source, value, ...classifyPermission(value) });
  };
  add(null, 'manifest.permissions', input.manifest.permissions);
  add(null, 'manifest.scopes', input.manifest.scopes);
  for (const tool of input.manifest.tools) {
    add(tool.name, 'permissions', tool.permissions);
    add(tool.name, 'scopes', tool.scopes);
    add(tool.name, 'annotations.permissions', tool.annotations?.permissions);
    add(tool.name, 'annotations.scopes', tool.annotations?.scopes);
  }
  return out;
}

function permissionFindings(declared: readonly DeclaredPermission[]): Finding[] {
  const findings: Finding[] = [];
  for (const d of declared) {
    const where = `${d.source} "${d.value}"`;
    const dangerous = d.categories.includes('execution') || d.categories.includes('secrets');
    if (d.tool === null) findings.push({ rule: 'server-wide-permission', severity: 'medium', tool: null, detail: `${where} applies to every tool`, owasp: ['MCP02'] });
    if (d.wildcard) findings.push({ rule: 'wildcard-permission', severity: dangerous ? 'critical' : 'high', tool: d.tool, detail: `${where} is a wildcard`, owasp: ['MCP02'] });
    if (d.overBroad) findings.push({ rule: 'over-broad-scope', severity: 'high', tool: d.tool, detail: `${where} grants administrative or root-level reach`, owasp: ['MCP02'] });
    if (d.categories.includes('execution')) findings.push({ rule: 'command-execution', severity: 'high', tool: d.tool, detail: `${where} allows running processes or commands`, owasp: ['MCP05'] });
    if (d.categories.includes('secrets')) findings.push({ rule: 'secrets-access', severity: 'high', tool: d.tool, detail: `${where} reaches secrets or credentials`, owasp: ['MCP01'] });
    if (d.categories.includes('file')) findings.push({ rule: d.write ? 'file-write' : 'file-access', severity: d.write ? 'medium' : 'low', tool: d.tool, detail: `${where} reaches the file system`, owasp: d.write ? ['MCP02'] : [] });
    if (d.categories.includes('network')) findings.push({ rule: 'network-access', severity: 'medium', tool: d.tool, detail: `${where} reaches the network`, owasp: [] });
  }
  // Combinations within one tool (server-wide declarations count for every tool).
  const byTool = new Map<string | null, Set<Category>>();
  for (const d of declared) for (const c of d.categories) byTool.set(d.tool, (byTool.get(d.tool) ?? new Set()).add(c));
  const serverWide = byTool.get(null) ?? new Set<Category>();
  const combinations: ReadonlyArray<[Category, Category, string, string, OwaspMcpId[]]> = [
    ['secrets', 'network', 'exfiltration-path', 'secrets and network access together allow credentials to leave', ['MCP01', 'MCP10']],
    ['execution', 'network', 'remote-execution-path', 'command execution and network access together allow remote code execution', ['MCP05']],
  ];
  for (const [tool, own] of byTool) {
    const all = new Set([...own, ...serverWide]);
    for (const [first, second, rule, detail, owasp] of combinations) {
      // A combination granted server-wide is reported once, on the manifest, not on every tool.
      const alreadyServerWide = tool !== null && serverWide.has(first) && serverWide.has(second);
      if (all.has(first) && all.has(second) && !alreadyServerWide) findings.push({ rule, severity: 'critical', tool, detail, owasp });
    }
  }
  return findings;
}

/** Names of other servers' tools listed in one finding of the tool; past this many, counted. */
const REFERRED_NAMES_LISTED = 10;

function crossReferenceDetail(referred: readonly string[]): string {
  const listed = referred.slice(0, REFERRED_NAMES_LISTED).map((name) => `"${name}"`).join(', ');
  const more = referred.length - REFERRED_NAMES_LISTED;
  return `description refers to ${referred.length === 1 ? 'a tool' : `${referred.length} tools`} of another server: ${listed}${more > 0 ? ` and ${more} more` : ''}`;
}

function manifestFindings(input: ToolPermissionInput): Finding[] {
  const findings: Finding[] = [];
  const others = new Map((input.other_tool_names ?? []).map((n) => [normaliseName(n), n]));
  const referable = [...others].filter(([normalised]) => normalised.length >= 3);
  const names = new NeedleSet(referable.map(([, original]) => original.toLowerCase()));
  const seen = new Map<string, string>();
  for (const tool of input.manifest.tools) {
    const texts = modelFacingTexts(tool);
    // One finding per kind of marker a tool carries, however many of its texts carry it.
    for (const marker of HIDDEN_INSTRUCTION_MARKERS)
      if (texts.some((text) => marker.test(text)))
        findings.push({ rule: 'hidden-instructions', severity: 'critical', tool: tool.name, detail: `model-facing text carries a ${marker.name}`, owasp: ['MCP03', 'MCP06'] });
    const key = normaliseName(tool.name);
    const twin = seen.get(key);
    if (twin !== undefined) findings.push({ rule: 'tool-shadowing', severity: 'high', tool: tool.name, detail: `name collides with tool "${twin}" of the same manifest`, owasp: ['MCP03'] });
    else seen.set(key, tool.name);
    const shadowed = others.get(key);
    if (shadowed !== undefined) findings.push({ rule: 'tool-shadowing', severity: 'high', tool: tool.name, detail: `name shadows "${shadowed}" of another server`, owasp: ['MCP03'] });
    const named = names.foundIn((tool.description ?? '').toLowerCase());
    const referred = [...referable.entries()].filter(([index, [normalised]]) => normalised !== key && named.has(index)).map(([, [, original]]) => original);
    if (referred.length > 0) findings.push({ rule: 'cross-tool-reference', severity: 'high', tool: tool.name, detail: crossReferenceDetail(referred), owasp: ['MCP03'] });
  }
  return findings;
}

const SEVERITY_RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3, critical: 4 };

function notPerformed(proof: OwnershipProof | undefined): JsonObject[] {
  const manifest = { check: 'fetching the manifest from the server', reason: 'no network is contacted: the manifest is analysed as supplied, not shown to be what the server lists' };
  if (!proof) return [manifest];
  return [manifest, { check: `ownership proof (${proof.method})`, reason: 'the proof is carried as method, subject and the SHA-256 of its evidence; nothing is resolved, fetched or verified, so it shows what the caller claims, not who controls the server' }];
}

export function analyseToolPermissions(input: ToolPermissionInput, now: number): JsonObject {
  const declared = declarationsOf(input);
  const findings = [...permissionFindings(declared), ...manifestFindings(input)];
  const highest = findings.reduce<Severity | null>((max, f) => (max === null || SEVERITY_RANK[f.severity] > SEVERITY_RANK[max] ? f.severity : max), null);
  const uncapped: RiskLevel = declared.length === 0 ? 'MINIMAL' : highest === null ? 'LOW' : LEVEL_OF[highest];
  const proof = input.ownership_proof;
  const capped = uncapped === 'CRITICAL' && !proof;
  const riskLevel: RiskLevel = capped ? 'HIGH' : uncapped;
  const usedOwasp = [...new Set(findings.flatMap((f) => f.owasp))].sort();
  const recommendations = [
    ...(proof ? [] : ['Supply an ownership proof of the server (dns-txt, well-known-uri, signed-challenge or did): without one the level is capped below CRITICAL.']),
    ...(findings.some((f) => f.rule === 'wildcard-permission' || f.rule === 'over-broad-scope' || f.rule === 'server-wide-permission') ? ['Replace wildcard, server-wide and administrative grants with per-tool least-privilege scopes.'] : []),
    ...(findings.some((f) => f.rule === 'hidden-instructions' || f.rule === 'cross-tool-reference') ? ['Remove instructions aimed at the model from tool descriptions and schemas; pin and hash approved descriptions.'] : []),
    ...(findings.some((f) => f.rule === 'tool-shadowing') ? ['Rename tools whose names collide with other tools, or namespace them by server.'] : []),
  ];
  return {
    kind: 'tool-permission-threat-model',
    ruleset: { ...TOOL_PERMISSION_RULESET },
    owaspList: OWASP_MCP_TOP10_VERSION,
    manifestSha256: canonicalSha256(input.manifest),
    toolsCount: input.manifest.tools.length,
    declaredPermissions: declared.map((d) => ({ ...d, categories: [...d.categories] })),
    findings: findings.map((f) => ({ ...f, owasp: [...f.owasp] })),
    owasp: Object.fromEntries(usedOwasp.map((id) => [id, OWASP_MCP_TOP10[id]])),
    riskLevel,
    levelCap: capped ? { from: 'CRITICAL', to: 'HIGH', reason: 'no ownership proof supplied' } : null,
    ownershipProof: proof ? { method: proof.method, subject: proof.subject, evidenceSha256: sha256Hex(proof.evidence) } : null,
    recommendations,
    // The manifest and the proof are the caller's: the level rests on what they declare, and a
    // CRITICAL reached through a proof must not read as a proof the service checked.
    evidence_source: 'caller-supplied',
    not_performed: notPerformed(proof),
    analyzedAt: now,
  };
}
