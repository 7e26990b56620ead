import type { Middleware } from 'koa';

const EXPOSED = 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-Request-Id';
const ALLOWED_HEADERS = 'PAYMENT-SIGNATURE, X-PAYMENT, Access-Control-Expose-Headers, Content-Type, X-Request-Id';

/**
 * CORS for browser wallets: any origin may read the payment headers. It wraps every answer,
 * the 402 challenges and the errors included, because it runs outside the error handler.
 */
export function cors(): Middleware {
  return async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSED);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
