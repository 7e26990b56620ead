import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { freeRoute, type FreeRoute } from '../kernel/operation.ts';

/**
 * The browser verifier, served free as static files: verifiers/web/ as it is in the repository
 * (no build step), plus tweetnacl from its package as the Ed25519 fallback for browsers whose
 * WebCrypto lacks Ed25519. Read once at start; nothing is generated per request.
 */
const webDir = new URL('../../verifiers/web/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, webDir), 'utf8');
const tweetnaclPath = createRequire(import.meta.url).resolve('tweetnacl/nacl-fast.min.js');

const files: Array<{ path: string; name: string; type: string; text: () => string }> = [
  { path: '/verify', name: 'the page', type: 'text/html; charset=utf-8', text: () => read('index.html') },
  { path: '/verify/page.js', name: 'the page script', type: 'text/javascript; charset=utf-8', text: () => read('page.js') },
  { path: '/verify/verify-core.js', name: 'the verification module (also used by npm run verify)', type: 'text/javascript; charset=utf-8', text: () => read('verify-core.js') },
  { path: '/verify/nacl-fast.min.js', name: 'tweetnacl, the Ed25519 fallback', type: 'text/javascript; charset=utf-8', text: () => readFileSync(tweetnaclPath, 'utf8') },
];

// The page runs only its own scripts and talks to nobody: a pasted result never leaves the browser.
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; connect-src 'none'";

export const verifierPageRoutes: FreeRoute[] = files.map(({ path, name, type, text }) => {
  let cached: string | undefined;
  return freeRoute({
    id: `verify-page${path.slice('/verify'.length).replaceAll('/', '.')}`,
    method: 'GET',
    path,
    family: 'service',
    summary: `The browser verifier: ${name}.`,
    description: 'A static page that verifies a result bundle (GET /v1/log/result/{sha256}) entirely in the browser with WebCrypto.',
    output: z.string(),
    produces: type.split(';')[0],
    handle: async () => ({ text: (cached ??= text()), contentType: type, headers: { 'Content-Security-Policy': PAGE_POLICY, 'Cache-Control': 'public, max-age=300' } }),
  });
});
