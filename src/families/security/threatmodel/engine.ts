import { canonicalSha256 } from '../../../signing/hash.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { OWASP_MCP_TOP10_VERSION } from '../../../kernel/standards/owasp-mcp-top10.ts';
import { LEVEL_SCORE, THREAT_RULES, type ThreatRule } from './rules.ts';
import { sliceWholeCharacters } from '../../../kernel/whole-characters.ts';
import { isJsonObject } from '../../../kernel/json.ts';

export const THREATMODEL_RULESET_ID = 'stride-manifest';
/**
 * Version 2 (2026-11-27): a threat names its rule and no longer copies the rule's title and
 * mitigations, which the record's ruleset holds once (version 1 repeated them in every threat).
 */
export const THREATMODEL_RULESET_VERSION = '2';
/** The OpenAPI methods modelled as operations. */
export const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const URL_NAME = /(^|_)(url|uri|link|endpoint|webhook|callback|href)s?$/i;
const PATH_NAME = /(^|_)(path|file|filename|dir|directory|folder)s?$/i;
const COMMAND_NAME = /(^|_)(command|cmd|shell|script|code|sql|query|expression|eval)$/i;
const SECRET_NAME = /(password|passwd|secret|token|api_?key|private_?key|credential)/i;
const WRITE_VERB = /(^|[_-])(delete|remove|drop|update|write|create|send|transfer|pay|post|exec|execute|run|deploy|modify|set)([_-]|$)/i;
const INSTRUCTION_TEXT = /(ignore (all |any )?(previous|prior) instructions|<important>|do not (tell|mention|inform)|always (call|use) this tool|before (using|calling) any other tool)/i;

export interface Element {
  id: string;
  kind: 'tool' | 'operation';
  name: string;
  inputs: Array<{ name: string; schema: JsonObject }>;
  destructive: { value: boolean; evidence: string };
  openWorld: { value: boolean; evidence: string };
  idempotent: { value: boolean; evidence: string };
  description: string;
  authenticated: boolean | null;
}

/** MCP annotations with the spec's defaults when absent: destructive, open-world, not idempotent. */
function hint(annotations: JsonObject, name: string, fallback: boolean): { value: boolean; evidence: string } {
  const v = annotations[name];
  return typeof v === 'boolean' ? { value: v, evidence: `annotations.${name} = ${v}` } : { value: fallback, evidence: `annotations.${name} absent (MCP default ${fallback})` };
}

function propertiesOf(schema: unknown): Array<{ name: string; schema: JsonObject }> {
  if (!isJsonObject(schema) || !isJsonObject(schema['properties'])) return [];
  return Object.entries(schema['properties']).flatMap(([name, s]) => (isJsonObject(s) ? [{ name, schema: s }] : []));
}

function elementsOfMcp(manifest: JsonObject): Element[] {
  const tools = Array.isArray(manifest['tools']) ? manifest['tools'].filter(isJsonObject) : [];
  return tools.map((t, i) => {
    const annotations = isJsonObject(t['annotations']) ? t['annotations'] : {};
    const readOnly = annotations['readOnlyHint'] === true;
    return {
      id: `tool:${String(t['name'] ?? i)}`,
      kind: 'tool',
      name: String(t['name'] ?? `tool ${i}`),
      inputs: propertiesOf(t['inputSchema']),
      // A read-only tool is not destructive whatever destructiveHint says (the spec: it applies only when readOnlyHint is false).
      destructive: readOnly ? { value: false, evidence: 'annotations.readOnlyHint = true' } : hint(annotations, 'destructiveHint', true),
      openWorld: hint(annotations, 'openWorldHint', true),
      idempotent: readOnly ? { value: true, evidence: 'annotations.readOnlyHint = true' } : hint(annotations, 'idempotentHint', false),
      description: String(t['description'] ?? ''),
      authenticated: null,
    };
  });
}

function elementsOfOpenApi(doc: JsonObject): Element[] {
  const globalSecurity = Array.isArray(doc['security']) && doc['security'].length > 0;
  const paths = isJsonObject(doc['paths']) ? doc['paths'] : {};
  return Object.entries(paths).flatMap(([path, item]) =>
    OPENAPI_METHODS.flatMap((method) => {
      const op = isJsonObject(item) ? item[method] : undefined;
      if (!isJsonObject(op)) return [];
      const write = method !== 'get';
      const params = (Array.isArray(op['parameters']) ? op['parameters'] : []).filter(isJsonObject).map((p) => ({ name: String(p['name'] ?? ''), schema: isJsonObject(p['schema']) ? p['schema'] : {} }));
      const body = isJsonObject(op['requestBody']) && isJsonObject(op['requestBody']['content']) ? Object.values(op['requestBody']['content']).flatMap((c) => (isJsonObject(c) ? propertiesOf(c['schema']) : [])) : [];
      const authenticated = Array.isArray(op['security']) ? op['security'].some((s) => isJsonObject(s) && Object.keys(s).length > 0) : globalSecurity;
      return [{
        id: `operation:${method.toUpperCase()} ${path}`,
        kind: 'operation' as const,
        name: `${method.toUpperCase()} ${path}`,
        inputs: [...params, ...body],
        destructive: { value: write, evidence: `HTTP ${method.toUpperCase()}` },
        openWorld: { value: false, evidence: 'an HTTP operation: what it fetches is not declared' },
        idempotent: { value: method !== 'post' && method !== 'patch', evidence: `HTTP ${method.toUpperCase()} semantics (RFC 9110)` },
        description: String(op['description'] ?? op['summary'] ?? ''),
        authenticated,
      }];
    }),
  );
}

const unbounded = (schema: JsonObject) => (schema['type'] === 'string' && schema['maxLength'] === undefined && schema['enum'] === undefined && schema['format'] === undefined) || (schema['type'] === 'array' && schema['maxItems'] === undefined);

interface Threat {
  rule: ThreatRule;
  element: string;
  target: string;
  evidence: string;
}

const riskOf = (rule: ThreatRule) => LEVEL_SCORE[rule.likelihood] * LEVEL_SCORE[rule.impact];

function threatsOf(e: Element): Threat[] {
  const threats: Threat[] = [];
  const raise = (rule: ThreatRule, target: string, evidence: string) => threats.push({ rule, element: e.id, target, evidence });
  if (e.destructive.value || (e.kind === 'tool' && WRITE_VERB.test(e.name) && e.destructive.evidence.includes('absent'))) raise(THREAT_RULES.destructive, e.id, e.destructive.evidence);
  if (e.openWorld.value) raise(THREAT_RULES.openWorldOutput, `${e.id} output`, e.openWorld.evidence);
  if (e.destructive.value && !e.idempotent.value) raise(THREAT_RULES.unaudited, e.id, `${e.destructive.evidence}; ${e.idempotent.evidence}`);
  if (INSTRUCTION_TEXT.test(e.description)) raise(THREAT_RULES.poisonedDescription, e.id, `description: "${INSTRUCTION_TEXT.exec(e.description)![0]}"`);
  if (e.authenticated === false) raise(THREAT_RULES.unauthenticated, e.id, 'no security requirement (operation or global)');
  for (const input of e.inputs) {
    const target = `${e.id} input ${input.name}`;
    if (URL_NAME.test(input.name) || input.schema['format'] === 'uri' || input.schema['format'] === 'url') raise(THREAT_RULES.urlInput, target, `input ${input.name}${input.schema['format'] ? ` (format ${String(input.schema['format'])})` : ''}`);
    if (PATH_NAME.test(input.name)) raise(THREAT_RULES.pathInput, target, `input ${input.name}`);
    if (COMMAND_NAME.test(input.name)) raise(THREAT_RULES.commandInput, target, `input ${input.name}`);
    if (SECRET_NAME.test(input.name)) raise(THREAT_RULES.secretInput, target, `input ${input.name}`);
    if (unbounded(input.schema)) raise(THREAT_RULES.unboundedInput, target, `input ${input.name}: ${String(input.schema['type'])} without ${input.schema['type'] === 'array' ? 'maxItems' : 'maxLength'}`);
  }
  return threats;
}

/** The threats each element raises, in the elements' order. */
export const threatsOfEach = (elements: Element[]): Threat[][] => elements.map(threatsOf);

/**
 * A manifest's elements and the threats each raises: the limit check builds them to count the
 * threats (limits.ts) and hands them to the paid call, which lists them; neither changes them.
 * `input`: the input they were built from, the one object they may be read for.
 */
export interface ManifestThreats {
  input: ThreatModelInput;
  elements: Element[];
  threatsByElement: Threat[][];
}

/** A threat as the record lists it: its rule's title and mitigations are in the ruleset, once. */
const threatEntry = (t: Threat): JsonObject => ({ rule: t.rule.id, stride: t.rule.stride, element: t.element, target: t.target, evidence: t.evidence, likelihood: t.rule.likelihood, impact: t.rule.impact, risk: riskOf(t.rule), owasp_mcp: [...t.rule.owasp_mcp], cwe: [...t.rule.cwe] });

/**
 * OWASP Threat Dragon v2: one diagram, a process per element, its threats on the cell. Each
 * element's own threats, not those of every element of its name: a manifest that repeats one
 * tool name thousands of times made that a product of the two counts and ran the process out
 * of memory. The export keeps each threat's title and mitigation text: Threat Dragon reads them
 * from the threat, not from a rule table.
 */
function threatDragon(elements: Element[], threatsByElement: Threat[][], title: string): JsonObject {
  const threatCount = threatsByElement.reduce((sum, own) => sum + own.length, 0);
  const cells = elements.map((e, i) => ({
    id: `cell-${i}`,
    shape: 'process',
    position: { x: 40 + (i % 4) * 220, y: 40 + Math.floor(i / 4) * 160 },
    size: { width: 160, height: 80 },
    data: {
      type: 'tm.Process',
      name: e.name,
      description: sliceWholeCharacters(e.description, 500),
      outOfScope: false,
      hasOpenThreats: threatsByElement[i]!.length > 0,
      threats: threatsByElement[i]!.map((t, k) => {
        const risk = riskOf(t.rule);
        return { id: `${i}-${k}`, title: t.rule.title, status: 'Open', severity: risk >= 6 ? 'High' : risk >= 3 ? 'Medium' : 'Low', type: t.rule.stride, description: `${t.evidence} (${t.rule.cwe.join(', ')})`, mitigation: t.rule.mitigations.join('; '), modelType: 'STRIDE', number: k + 1, score: String(risk) };
      }),
    },
  }));
  return { version: '2.2.0', summary: { title, owner: '', description: 'Generated from a tool manifest by a deterministic rule table', id: 0 }, detail: { contributors: [], diagrams: [{ id: 0, title: 'Manifest', diagramType: 'STRIDE', placeholder: '', thumbnail: './public/content/images/thumbnail.stride.jpg', version: '2.2.0', cells }], diagramTop: 1, reviewer: '', threatTop: threatCount } };
}

export interface ThreatModelInput {
  manifest: JsonObject;
  format?: 'mcp' | 'openapi' | undefined;
}

export const manifestFormat = (input: ThreatModelInput): 'mcp' | 'openapi' => input.format ?? (typeof input.manifest['openapi'] === 'string' ? 'openapi' : 'mcp');

/** The elements the model is made of: each MCP tool, or each OpenAPI operation, with its inputs. */
export function manifestElements(input: ThreatModelInput): Element[] {
  return manifestFormat(input) === 'openapi' ? elementsOfOpenApi(input.manifest) : elementsOfMcp(input.manifest);
}

function manifestThreats(input: ThreatModelInput): ManifestThreats {
  const elements = manifestElements(input);
  return { input, elements, threatsByElement: threatsOfEach(elements) };
}

/**
 * The record's content (everything but the stamp); attestation_id is its SHA-256. `built`: the
 * elements and threats of this input as the limit check built them; built here when absent or
 * built from another input.
 */
export function threatModelContent(input: ThreatModelInput, built?: ManifestThreats): JsonObject {
  const format = manifestFormat(input);
  const { elements, threatsByElement } = built?.input === input ? built : manifestThreats(input);
  const threats = threatsByElement.flat().map(threatEntry);
  const title = format === 'openapi' && isJsonObject(input.manifest['info']) ? String(input.manifest['info']['title'] ?? 'API') : 'MCP server';
  const byStride: Record<string, number> = {};
  for (const t of threats) byStride[String(t['stride'])] = (byStride[String(t['stride'])] ?? 0) + 1;
  return {
    kind: 'threat-model',
    ruleset: { id: THREATMODEL_RULESET_ID, version: THREATMODEL_RULESET_VERSION, rules: Object.values(THREAT_RULES).map((r) => ({ ...r, mitigations: [...r.mitigations], owasp_mcp: [...r.owasp_mcp], cwe: [...r.cwe] })), owasp_mcp: OWASP_MCP_TOP10_VERSION, risk: 'likelihood x impact, each low 1, medium 2, high 3' },
    format,
    manifest_sha256: canonicalSha256(input.manifest),
    outcome: elements.length === 0 ? 'INSUFFICIENT-DATA' : threats.length === 0 ? 'NO-THREATS-FOUND' : 'THREATS-FOUND',
    elements: elements.map((e) => ({ id: e.id, kind: e.kind, inputs: e.inputs.map((i) => i.name), destructive: e.destructive.value, open_world: e.openWorld.value, idempotent: e.idempotent.value, authenticated: e.authenticated })),
    trust_boundaries: elements.filter((e) => e.openWorld.value).map((e) => ({ element: e.id, crosses: 'to the open world (external systems, untrusted content)' })),
    threats,
    by_stride: byStride,
    threat_dragon: threatDragon(elements, threatsByElement, title),
    evidence_source: 'caller-supplied',
    limitations: ['from the manifest alone: names, schemas, annotations and descriptions; the server\'s code and behaviour are not examined', 'annotations are hints the server declares about itself, not guarantees'],
  };
}

export function modelThreats(input: ThreatModelInput, now: number, built?: ManifestThreats): JsonObject {
  const content = threatModelContent(input, built);
  return { ...content, attestation_id: canonicalSha256(content), modeledAt: now };
}
