import { rfc3339Seconds } from '../../../kernel/calendar.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { isJsonObject } from '../../../kernel/json.ts';

export type Finding = {
  id: string;
  standard: string;
  category: string;
  severity: 'high' | 'medium' | 'low' | 'info';
  where: string;
  message: string;
};

export const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const WRITE = new Set(['put', 'post', 'delete', 'patch']);
const SENSITIVE_QUERY = /^(password|passwd|pwd|secret|token|access_token|refresh_token|api[_-]?key|apikey|auth|session|ssn|card|credit_card|cvv)$/i;
const URL_PARAM = /(^|_)(url|uri|callback|webhook|redirect|return_to|next)($|_)/i;
const OWASP_API = 'OWASP API Security Top 10 (2023)';

type Owasp = (id: string, category: string, severity: Finding['severity'], where: string, message: string) => void;

export const parametersOf = (holder: JsonObject): JsonObject[] => (Array.isArray(holder['parameters']) ? holder['parameters'] : []).filter(isJsonObject);

/** The parameters of one list: `where` names the operation, or the path alone for the path's own list. */
function reviewParameters(params: JsonObject[], where: string, owasp: Owasp): void {
  for (const p of params) {
    const name = String(p['name'] ?? '');
    const schema = isJsonObject(p['schema']) ? p['schema'] : {};
    if (p['in'] === 'query' && SENSITIVE_QUERY.test(name)) owasp('API2:2023', 'Broken Authentication', 'high', `${where} ?${name}`, 'a credential or secret in the query string ends up in logs, caches and Referer headers');
    if (schema['type'] === 'string' && schema['maxLength'] === undefined && schema['enum'] === undefined && schema['format'] === undefined) owasp('API4:2023', 'Unrestricted Resource Consumption', 'low', `${where} ${p['in']} ${name}`, 'a string parameter without maxLength');
    if (URL_PARAM.test(name) || schema['format'] === 'uri' || schema['format'] === 'url') owasp('API7:2023', 'Server Side Request Forgery', 'medium', `${where} ${name}`, 'the API takes a URL from the caller: if the server fetches it, it needs an allow list');
  }
}

/**
 * OWASP API Security Top 10 (2023), the static part: what an OpenAPI document shows. The
 * parameters a path declares for all its operations are reviewed once, under the path (`where`
 * without a method): reviewed with each operation, 2,000 of them on a path of 8 operations made
 * 32,000 findings.
 */
export function reviewOpenApi(doc: JsonObject): Finding[] {
  const findings: Finding[] = [];
  const owasp: Owasp = (id, category, severity, where, message) => findings.push({ id, standard: OWASP_API, category, severity, where, message });
  const globalSecurity = Array.isArray(doc['security']) && doc['security'].length > 0;
  const servers = Array.isArray(doc['servers']) ? doc['servers'] : [];
  for (const server of servers) if (isJsonObject(server) && typeof server['url'] === 'string' && server['url'].startsWith('http://')) owasp('API8:2023', 'Security Misconfiguration', 'high', `servers: ${server['url']}`, 'a server is reached over plain HTTP');
  const paths = isJsonObject(doc['paths']) ? doc['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isJsonObject(item)) continue;
    const operations = OPENAPI_METHODS.flatMap((method) => (isJsonObject(item[method]) ? [{ method, op: item[method] }] : []));
    if (operations.length > 0) reviewParameters(parametersOf(item), path, owasp);
    for (const { method, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      const secured = Array.isArray(op['security']) ? op['security'].length > 0 && !op['security'].every((s) => isJsonObject(s) && Object.keys(s).length === 0) : globalSecurity;
      if (!secured) {
        owasp('API2:2023', 'Broken Authentication', WRITE.has(method) ? 'high' : 'medium', where, WRITE.has(method) ? 'a write operation without any security requirement' : 'an operation without any security requirement');
        if (/\{[^}]*id[^}]*\}/i.test(path)) owasp('API1:2023', 'Broken Object Level Authorization', 'high', where, 'an object addressed by id in the path, with no security requirement: any caller may read or change any object');
      }
      reviewParameters(parametersOf(op), where, owasp);
      if (isJsonObject(op['requestBody']) && !hasBound(op['requestBody'])) owasp('API4:2023', 'Unrestricted Resource Consumption', 'medium', where, 'a request body with no size bound (maxLength, maxItems or maxProperties) in its schema');
      const responses = isJsonObject(op['responses']) ? Object.keys(op['responses']) : [];
      if (!responses.includes('429')) owasp('API4:2023', 'Unrestricted Resource Consumption', 'low', where, 'no 429 response documented: no sign of rate limiting');
      if (op['deprecated'] === true) owasp('API9:2023', 'Improper Inventory Management', 'info', where, 'a deprecated operation is still served');
    }
  }
  return findings;
}

function hasBound(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(hasBound);
  if (!isJsonObject(value)) return false;
  if (['maxLength', 'maxItems', 'maxProperties'].some((k) => k in value)) return true;
  return Object.values(value).some(hasBound);
}

/** OWASP Secure Headers Project: headers a response should carry, and ones it should not. */
export function reviewHeaders(captured: Record<string, string>): Finding[] {
  const headers = Object.fromEntries(Object.entries(captured).map(([k, v]) => [k.toLowerCase(), v]));
  const findings: Finding[] = [];
  const osh = (severity: Finding['severity'], where: string, message: string) => findings.push({ id: `OSHP:${where}`, standard: 'OWASP Secure Headers Project', category: 'HTTP response headers', severity, where, message });
  const hsts = headers['strict-transport-security'];
  if (!hsts) osh('high', 'Strict-Transport-Security', 'missing: browsers may be downgraded to HTTP');
  else if (Number(/max-age=(\d+)/i.exec(hsts)?.[1] ?? 0) < 31_536_000) osh('medium', 'Strict-Transport-Security', `max-age below one year (${hsts})`);
  if (!headers['content-security-policy']) osh('medium', 'Content-Security-Policy', 'missing');
  if (headers['x-content-type-options']?.toLowerCase() !== 'nosniff') osh('medium', 'X-Content-Type-Options', 'missing or not nosniff');
  if (!headers['x-frame-options'] && !/frame-ancestors/i.test(headers['content-security-policy'] ?? '')) osh('medium', 'X-Frame-Options', 'neither X-Frame-Options nor CSP frame-ancestors: the page can be framed');
  if (!headers['referrer-policy']) osh('low', 'Referrer-Policy', 'missing');
  if (!headers['permissions-policy']) osh('low', 'Permissions-Policy', 'missing');
  if (!headers['cross-origin-opener-policy']) osh('low', 'Cross-Origin-Opener-Policy', 'missing');
  if (!headers['cross-origin-resource-policy']) osh('low', 'Cross-Origin-Resource-Policy', 'missing');
  for (const leaky of ['x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version']) if (headers[leaky]) osh('low', leaky, `discloses the stack (${headers[leaky]}): remove it`);
  if (headers['server'] && /\d/.test(headers['server'])) osh('low', 'Server', `discloses a version (${headers['server']})`);
  return findings;
}

/** RFC 9116: Contact and Expires are required; Expires once, in the future, less than a year ahead. */
export function reviewSecurityTxt(text: string, now: number): Finding[] {
  const findings: Finding[] = [];
  const rfc = (severity: Finding['severity'], where: string, message: string) => findings.push({ id: `RFC9116:${where}`, standard: 'RFC 9116', category: 'security.txt', severity, where, message });
  const signed = text.includes('-----BEGIN PGP SIGNED MESSAGE-----');
  const fields = text.split(/\r?\n/).filter((l) => !l.startsWith('#') && l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const);
  const values = (name: string) => fields.filter(([n]) => n === name).map(([, v]) => v);
  if (values('contact').length === 0) rfc('high', 'Contact', 'missing: the Contact field is required (section 2.5.3)');
  for (const contact of values('contact')) if (!/^(https:|mailto:|tel:)/i.test(contact)) rfc('medium', 'Contact', `${contact} is not an https, mailto or tel URI`);
  const expires = values('expires');
  if (expires.length !== 1) rfc('high', 'Expires', expires.length === 0 ? 'missing: the Expires field is required (section 2.5.5)' : 'appears more than once');
  else {
    const at = rfc3339Seconds(expires[0]!);
    if (at === undefined) rfc('high', 'Expires', `${expires[0]} is not an RFC 3339 date-time`);
    else if (at < now) rfc('high', 'Expires', `expired at ${expires[0]}`);
    else if (at - now > 366 * 86_400) rfc('low', 'Expires', 'more than a year ahead (section 2.5.5 recommends less)');
  }
  for (const url of [...values('canonical'), ...values('policy'), ...values('encryption'), ...values('acknowledgments')]) if (url.startsWith('http://')) rfc('medium', 'URI', `${url} must be https`);
  if (!signed) rfc('info', 'Signature', 'not signed (an OpenPGP cleartext signature is recommended, section 2.3)');
  return findings;
}
