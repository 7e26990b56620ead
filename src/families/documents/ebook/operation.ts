import { join } from 'node:path';
import { z } from 'zod';
import { freeRoute, pricedOperation, type FileDelivery, type FreeResponse, type Route, type ServiceDeps } from '../../../kernel/operation.ts';
import { signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, onlyKinds, rebuildFromBody, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { ebookOf, fileMadeOnce, samplePdf, type Ebook } from './ebook-file.ts';

const PRICE = '29.00';
const unavailable = (reason: string): FreeResponse => ({ status: 503, body: { error: 'ebook_unavailable', message: reason }, headers: { 'Retry-After': '60' } });
const card = (e: Ebook) => ({ title: e.title, pages: e.pages, bytes: e.bytes, sha256: e.sha256, price_usd: PRICE, currency: 'USDC', sample_pages: e.samplePages, source: e.source, sample_url: '/api/ebook/sample', download_url: '/api/ebook/download' });

const ebookCard = freeRoute({
  id: 'ebook.card',
  method: 'GET',
  path: '/api/ebook',
  family: 'documents',
  summary: 'Product card for the ebook.',
  description: 'Title, pages, bytes, SHA-256 (the download\'s ETag), price and sample pages of the PDF on sale: the operator\'s (EBOOK_PATH) or the service\'s own handbook generated from its documentation. 503 when the file is missing or unreadable, and then the download is never quoted.',
  output: z.object({ title: z.string(), pages: z.number().int(), bytes: z.number().int(), sha256: z.string(), price_usd: z.string(), currency: z.string(), sample_pages: z.number().int(), source: z.enum(['operator', 'handbook']), sample_url: z.string(), download_url: z.string() }),
  handle: async (_i, deps) => {
    const state = await ebookOf(deps.settings);
    return state.ok ? { body: card(state.ebook), headers: { 'Cache-Control': 'public, max-age=300' } } : unavailable(state.reason);
  },
});

/** The sample, made once per ebook and kept on disk beside the data, then streamed. */
const samplePath = (e: Ebook, dataDir: string) => fileMadeOnce(join(dataDir, 'ebook', `sample-${e.sha256.slice(0, 16)}-${e.samplePages}.pdf`), () => samplePdf(e));

const ebookSample = freeRoute({
  id: 'ebook.sample',
  method: 'GET',
  path: '/api/ebook/sample',
  family: 'documents',
  summary: 'Streams the sample PDF.',
  description: 'The first EBOOK_SAMPLE_PAGES pages (default 10) of the ebook as a PDF of their own, streamed.',
  output: z.string(),
  produces: 'application/pdf',
  handle: async (_i, deps) => {
    const state = await ebookOf(deps.settings);
    if (!state.ok) return unavailable(state.reason);
    return { file: await samplePath(state.ebook, deps.settings.DATA_DIR), contentType: 'application/pdf', headers: { 'Content-Disposition': 'inline; filename="sample.pdf"', 'Cache-Control': 'public, max-age=300' } };
  },
});

const purchase = z.object({
  kind: z.literal('ebook-purchase'),
  product: z.object({ title: z.string(), sha256: z.string(), bytes: z.number().int(), pages: z.number().int() }),
  price_usd: z.string(),
  purchasedAt: z.number().int(),
});

/** The file bought, if it is still the file on sale. */
async function deliver(answer: JsonObject, deps: ServiceDeps): Promise<FileDelivery> {
  const bought = (answer['receipt'] as { product?: { sha256?: string } } | undefined)?.product?.sha256;
  const state = await ebookOf(deps.settings);
  if (!state.ok || state.ebook.sha256 !== bought) return { gone: `the ebook bought (${bought ?? 'unknown'}) is no longer the file served` };
  return { path: state.ebook.path, contentType: 'application/pdf', bytes: state.ebook.bytes, sha256: state.ebook.sha256, filename: state.ebook.source === 'handbook' ? 'attestation-service-handbook.pdf' : 'ebook.pdf' };
}

const ebookDownload = pricedOperation({
  id: 'ebook.download',
  method: 'GET',
  path: '/api/ebook/download',
  family: 'documents',
  priceUsd: PRICE,
  summary: 'Streams the full PDF after verified settlement.',
  description:
    'Quoted at 29.00 USDC (the official x402 clients refuse payments above 1 USD unless their cap is raised: see the README). After settlement the PDF is streamed from disk, never buffered whole, with ETag = its SHA-256 and the signed purchase receipt (utils key) in the X-Purchase-Receipt header (base64url of the JSON answer). A replay of the same payment streams it again and charges nothing more. Never quoted while the file is missing or unreadable (503).',
  inputFrom: 'query',
  input: z.object({}).strict(),
  example: {},
  output: signedResponse(purchase, 'receipt'),
  keyFamily: 'utils',
  signedMember: 'receipt',
  verifyPath: '/api/ebook/receipt/recheck',
  async precheckState(_i, deps) {
    const state = await ebookOf(deps.settings);
    return state.ok ? undefined : { status: 503, error: 'ebook_unavailable', message: `${state.reason}; nothing was charged`, retryAfterSeconds: 60 };
  },
  command: {
    async execute(_i, ctx) {
      const state = await ebookOf(ctx.settings);
      if (!state.ok) throw new Error(state.reason);
      const e = state.ebook;
      return { record: { kind: 'ebook-purchase', product: { title: e.title, sha256: e.sha256, bytes: e.bytes, pages: e.pages }, price_usd: PRICE, purchasedAt: ctx.now } };
    },
  },
  deliver,
});

const receiptRecheck = verifyRoute({ id: 'ebook.receipt.recheck', method: 'POST', path: '/api/ebook/receipt/recheck', family: 'documents', keyFamily: 'utils', summary: 'Re-checks an ebook purchase receipt (body = the receipt as JSON); another utility receipt is not one.', params: bodyVerifyParams, rebuild: rebuildFromBody, alsoCheck: onlyKinds('ebook-purchase') });

export const ebookRoutes: Route[] = [ebookCard, ebookSample, ebookDownload, receiptRecheck];
