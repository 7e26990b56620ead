import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { decodeUtf8, describeIllFormed } from '../../kernel/rfc3629.ts';
import { parseIJson } from '../../kernel/rfc7493.ts';
import { HttpProblem, validationProblem } from '../problem.ts';

const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * Reads a JSON request body as I-JSON (kernel/rfc7493.ts): a number, string or member that a
 * signature could not carry faithfully is a 422 naming it, never silently altered. So is a body
 * that is not UTF-8 (a Latin-1 e-mail address, say): a lenient decoder would sign U+FFFD in its
 * place. Other bodies are not parsed at all (an operation that takes files reads its own upload).
 */
export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    const type = ctx.req.headers['content-type'];
    if (ctx.method !== 'POST' || type === undefined || !JSON_TYPE.test(type)) return next();
    let bytes: Buffer;
    try {
      bytes = await getRawBody(ctx.req, { limit: limitBytes, length: ctx.req.headers['content-length'] });
    } catch (err) {
      const { type: reason, status } = err as { type?: string; status?: number };
      if (reason === 'entity.too.large' || status === 413) throw new HttpProblem(413, 'payload_too_large', `request body exceeds the size limit (${limitBytes} bytes of JSON)`);
      throw new HttpProblem(400, 'bad_request', 'the request body could not be read');
    }
    const decoded = decodeUtf8(bytes);
    if (!decoded.ok) throw validationProblem([{ path: '(body)', message: `not UTF-8: ${describeIllFormed(decoded)}; send UTF-8, whatever the charset parameter says` }]);
    const text = decoded.text;
    if (text.trim() === '') return next();
    const parsed = parseIJson(text);
    if (!parsed.ok) throw validationProblem([{ path: parsed.path, message: parsed.reason }]);
    ctx.state.body = parsed.value;
    return next();
  };
}
