import type { Middleware } from 'koa';

const EXPOSED = 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE, X-Log-Leaf-Index, X-Request-Id';
const ALLOWED_HEADERS = 'PAYMENT-SIGNATURE, X-PAYMENT, Access-Control-Expose-Headers, Content-Type, X-Request-Id';

/**
 * CORS for browser wallets: any origin may read the payment headers. It wraps every answer,
 * the 402 challenges and the errors included, because it runs outside the error handler.
 * Not async (it has nothing to do after the answer), so it adds no promise per request.
 */
export function cors(): Middleware {
  return (ctx, next) => {
    const res = ctx.res;
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    if (ctx.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return Promise.resolve();
    }
    return next();
  };
}
