import type { PrecheckAnswer } from '../../../kernel/operation.ts';
import { manifestElements, manifestFormat, OPENAPI_METHODS, threatsOfEach, type ManifestThreats, type ThreatModelInput } from './engine.ts';
import { sliceWholeCharacters } from '../../../kernel/whole-characters.ts';
import { isJsonObject } from '../../../kernel/json.ts';

/**
 * What one model covers. Every element and every input raises threats of its own, each listed
 * twice (in `threats` and in the Threat Dragon export) with the element's name in it: without
 * bounds a 40 KB manifest of empty tools made a 34 MB answer, and a long tool name was copied
 * into every threat of the tool. The bounds are far above what a real manifest holds; the
 * threat count is what the answer's size follows (about 800 bytes a threat with short names).
 */
export const MAX_ELEMENTS = 500;
export const MAX_INPUTS_PER_ELEMENT = 100;
export const MAX_THREATS = 2_000;
/** Tool and input names: the MCP specification asks tool names to be at most 128 characters. */
export const MAX_NAME_LENGTH = 128;
export const MAX_PATH_LENGTH = 256;


/** Counted as written, before any element is built, so that the count itself costs nothing. */
function declaredElements(input: ThreatModelInput): { count: number; path: string; what: string } {
  if (manifestFormat(input) === 'mcp') {
    const tools = input.manifest['tools'];
    return { count: Array.isArray(tools) ? tools.length : 0, path: 'manifest.tools', what: 'tools' };
  }
  const paths = isJsonObject(input.manifest['paths']) ? input.manifest['paths'] : {};
  let count = 0;
  for (const item of Object.values(paths)) if (isJsonObject(item)) for (const method of OPENAPI_METHODS) if (isJsonObject(item[method])) count++;
  return { count, path: 'manifest.paths', what: 'operations' };
}

type Issue = { path: string; message: string };

/** What is beyond the limits, or, within them, the elements and threats built to count them. */
function limitIssues(input: ThreatModelInput): { issues: Issue[] } | { built: ManifestThreats } {
  const declared = declaredElements(input);
  if (declared.count > MAX_ELEMENTS) return { issues: [{ path: declared.path, message: `${declared.count} ${declared.what}: at most ${MAX_ELEMENTS} are modelled in one call` }] };
  const elements = manifestElements(input);
  const issues: Issue[] = [];
  const tooLong = (name: string) => name.length > MAX_NAME_LENGTH;
  for (const e of elements) {
    // An OpenAPI element's name is the method and the path.
    if (e.kind === 'tool' && tooLong(e.name)) issues.push({ path: declared.path, message: `a tool name of ${e.name.length} characters: at most ${MAX_NAME_LENGTH}` });
    const path = e.kind === 'operation' ? e.name.slice(e.name.indexOf(' ') + 1) : '';
    if (path.length > MAX_PATH_LENGTH) issues.push({ path: declared.path, message: `a path of ${path.length} characters: at most ${MAX_PATH_LENGTH}` });
    if (e.inputs.length > MAX_INPUTS_PER_ELEMENT) issues.push({ path: declared.path, message: `${sliceWholeCharacters(e.id, 80)} has ${e.inputs.length} inputs: at most ${MAX_INPUTS_PER_ELEMENT} per ${e.kind}` });
    const longInput = e.inputs.find((i) => tooLong(i.name));
    if (longInput) issues.push({ path: declared.path, message: `${sliceWholeCharacters(e.id, 80)} has an input name of ${longInput.name.length} characters: at most ${MAX_NAME_LENGTH}` });
    if (issues.length >= 10) return { issues };
  }
  if (issues.length > 0) return { issues };
  const threatsByElement = threatsOfEach(elements);
  const threats = threatsByElement.reduce((sum, own) => sum + own.length, 0);
  if (threats > MAX_THREATS) return { issues: [{ path: declared.path, message: `the manifest raises ${threats} threats: at most ${MAX_THREATS} are listed in one model; split the manifest` }] };
  return { built: { input, elements, threatsByElement } };
}

/**
 * Refused before the quote: a manifest beyond what one model covers. Within the limits, the
 * elements and threats built to count them are handed to the paid call, which lists them.
 */
export function checkManifestLimits(input: ThreatModelInput): PrecheckAnswer<ManifestThreats> {
  const checked = limitIssues(input);
  if ('built' in checked) return { handoff: checked.built };
  const { issues } = checked;
  return { status: 422, error: 'manifest_too_large', message: `the manifest is beyond what one threat model covers: ${issues[0]!.message}`, outcome: 'INVALID-INPUT', issues };
}
