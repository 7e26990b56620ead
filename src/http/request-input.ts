import { parse as parseQuery } from 'node:querystring';
import type { Context } from 'koa';
import { HttpProblem } from './problem.ts';

/**
 * Query parameters as single strings; a parameter given twice is ambiguous and refused, and so
 * is one whose percent-encoded bytes are not UTF-8 (`topic=caf%E9`): the lenient decoders put
 * U+FFFD in their place, and the service would sign or verify something the caller did not
 * send. A '%' not followed by two hex digits stays a literal '%', as WHATWG URLs read it.
 * Parsed with node:querystring rather than Koa's URLSearchParams-based getter: verify routes
 * carry whole records in the query string, and this is their hot path.
 */
export function singleValuedQuery(ctx: Context): Record<string, string> {
  const query = querystringOf(ctx);
  let illFormed = false;
  const decode = (component: string): string => {
    const decoded = decodePercentUtf8(component);
    if (decoded === undefined) illFormed = true;
    return decoded ?? component;
  };
  const parsed = parseQuery(query, '&', '=', { decodeURIComponent: decode });
  if (illFormed) throw illFormedQueryProblem(query);
  for (const name in parsed)
    if (typeof parsed[name] !== 'string')
      throw new HttpProblem(422, 'validation_error', `query parameter ${name} must be given once`, {
        outcome: 'INVALID-INPUT',
        issues: [{ path: name, message: 'must be given once' }],
      });
  return parsed as Record<string, string>;
}

/** The text a percent-encoded component stands for, or undefined when its bytes are not UTF-8. */
function decodePercentUtf8(component: string): string | undefined {
  try {
    return decodeURIComponent(component);
  } catch {
    // Rare: a literal '%' (kept as one), or bytes that are not UTF-8 (refused).
    try {
      return decodeURIComponent(component.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
    } catch {
      return undefined;
    }
  }
}

function illFormedQueryProblem(query: string): HttpProblem {
  const pair = query.split('&').find((part) => part.split('=').some((side) => decodePercentUtf8(side.replace(/\+/g, ' ')) === undefined)) ?? '';
  const name = decodePercentUtf8(pair.split('=')[0]!.replace(/\+/g, ' ')) ?? '(query)';
  const message = 'is not percent-encoded UTF-8 (RFC 3986 section 2.5): encode the text as UTF-8 before percent-encoding it';
  return new HttpProblem(422, 'validation_error', `query parameter ${name} ${message}`, { outcome: 'INVALID-INPUT', issues: [{ path: name, message }] });
}

/**
 * The request target cut at its query by a native search: Koa's ctx.path and ctx.querystring
 * parse the whole URL in JS, and on a GET verify route the URL carries the whole record.
 */
function splitAtQuery(ctx: Context): { path: string; query: string } {
  const url = ctx.req.url ?? '';
  const start = url.indexOf('?');
  return start === -1 ? { path: url, query: '' } : { path: url.slice(0, start), query: url.slice(start + 1) };
}

/** The path as sent, without the query. */
export function requestPath(ctx: Context): string {
  return splitAtQuery(ctx).path;
}

/** The query string as Koa's ctx.querystring gives it; a URL with a fragment goes to Koa. */
function querystringOf(ctx: Context): string {
  const { query } = splitAtQuery(ctx);
  return query.includes('#') ? ctx.querystring : query;
}

/** The parsed JSON body (middleware/json-body.ts); absent or non-JSON bodies read as undefined. */
export function jsonBody(ctx: Context): unknown {
  return (ctx.state as { body?: unknown }).body;
}

