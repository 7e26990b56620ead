import type { Middleware } from 'koa';
import { HttpProblem } from '../problem.ts';

/**
 * Request bodies are read as sent: the service decodes no content coding (RFC 9110 section
 * 8.4), so a body in one (`Content-Encoding: gzip`) is answered 415 with `Accept-Encoding:
 * identity` (RFC 7694), free. Without it a gzipped JSON body read as "malformed JSON" and a
 * gzipped upload as a damaged file. Decoding is left out on purpose: a few kilobytes of gzip can
 * inflate past any size limit before the limit sees it.
 */
export function identityBodiesOnly(): Middleware {
  return (ctx, next) => {
    const coding = ctx.req.headers['content-encoding'];
    if (coding === undefined || !carriesBody(ctx.req.headers)) return next();
    const codings = coding
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== '' && token !== 'identity');
    if (codings.length === 0) return next();
    throw new HttpProblem(
      415,
      'unsupported_media_type',
      `the request body is sent with Content-Encoding ${codings.join(', ')}; this service reads bodies uncompressed only (send it without Content-Encoding)`,
      {},
      { 'Accept-Encoding': 'identity' },
    );
  };
}

function carriesBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}
