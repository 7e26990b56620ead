import type { Refusal } from '../../../kernel/refusal.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { OPENAPI_METHODS, parametersOf } from './static-review.ts';
import { isJsonObject } from '../../../kernel/json.ts';

/**
 * What one review covers of an OpenAPI document. Each operation and each parameter makes findings
 * of its own, each naming the path: without bounds a 110 KB document made a 7.3 MB answer. The
 * bounds are far above what a real document within the 1 MiB body holds.
 */
export const MAX_OPERATIONS = 500;
/** In one `parameters` list, of a path or of an operation. */
export const MAX_PARAMETERS_PER_LIST = 100;
export const MAX_PARAMETERS = 2_000;
export const MAX_SERVERS = 50;
export const MAX_PATH_LENGTH = 256;

const ISSUE_PATH = 'artefacts.openapi';

function openApiIssues(doc: JsonObject): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  const servers = Array.isArray(doc['servers']) ? doc['servers'].length : 0;
  if (servers > MAX_SERVERS) issues.push({ path: `${ISSUE_PATH}.servers`, message: `${servers} servers: at most ${MAX_SERVERS}` });
  const paths = isJsonObject(doc['paths']) ? doc['paths'] : {};
  let operations = 0;
  let parameters = 0;
  const list = (holder: JsonObject, where: string) => {
    const count = parametersOf(holder).length;
    parameters += count;
    if (count > MAX_PARAMETERS_PER_LIST && issues.length < 10) issues.push({ path: `${ISSUE_PATH}.paths`, message: `${where} declares ${count} parameters: at most ${MAX_PARAMETERS_PER_LIST} in one list` });
  };
  for (const [path, item] of Object.entries(paths)) {
    if (!isJsonObject(item)) continue;
    const methods = OPENAPI_METHODS.filter((method) => isJsonObject(item[method]));
    if (methods.length === 0) continue;
    const shown = path.slice(0, 80);
    if (path.length > MAX_PATH_LENGTH && issues.length < 10) issues.push({ path: `${ISSUE_PATH}.paths`, message: `a path of ${path.length} characters: at most ${MAX_PATH_LENGTH}` });
    operations += methods.length;
    list(item, shown);
    for (const method of methods) list(item[method] as JsonObject, `${method.toUpperCase()} ${shown}`);
  }
  if (operations > MAX_OPERATIONS) issues.push({ path: `${ISSUE_PATH}.paths`, message: `${operations} operations: at most ${MAX_OPERATIONS} are reviewed in one call` });
  if (parameters > MAX_PARAMETERS) issues.push({ path: `${ISSUE_PATH}.paths`, message: `${parameters} parameters in all: at most ${MAX_PARAMETERS} are reviewed in one call` });
  return issues;
}

/** Refused before the quote: an OpenAPI document beyond what one review covers. */
export function openApiBeyondLimits(doc: JsonObject | undefined): Refusal | undefined {
  const issues = doc ? openApiIssues(doc) : [];
  if (issues.length === 0) return undefined;
  return { status: 422, error: 'openapi_too_large', message: `artefacts.openapi is beyond what one review covers: ${issues[0]!.message}`, outcome: 'INVALID-INPUT', issues };
}
