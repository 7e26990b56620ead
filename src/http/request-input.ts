import { parse as parseQuery } from 'node:querystring';
import type { Context } from 'koa';
import { HttpProblem } from './problem.ts';

/**
 * Query parameters as single strings; a parameter given twice is ambiguous and refused. Parsed
 * with node:querystring rather than Koa's URLSearchParams-based getter: verify routes carry whole
 * records in the query string, and this is their hot path.
 */
export function singleValuedQuery(ctx: Context): Record<string, string> {
  const parsed = parseQuery(querystringOf(ctx));
  for (const name in parsed)
    if (typeof parsed[name] !== 'string')
      throw new HttpProblem(422, 'validation_error', `query parameter ${name} must be given once`, {
        outcome: 'INVALID-INPUT',
        issues: [{ path: name, message: 'must be given once' }],
      });
  return parsed as Record<string, string>;
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

