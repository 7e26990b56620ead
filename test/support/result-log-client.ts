import { createHash } from 'node:crypto';
import { findOperation } from '../../src/catalog/index.ts';

/**
 * What a client of the result log does in the tests, written apart from the service's code:
 * RFC 6962 section 2.1's Merkle Tree Hash spelled out plainly, and waiting for a checkpoint.
 */
const sha256 = (...parts: Uint8Array[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/** RFC 6962: SHA-256(0x00 || entry). */
export const plainLeafHash = (entry: Uint8Array): Buffer => sha256(Uint8Array.of(0), entry);

/** MTH of RFC 6962 section 2.1 over leaf hashes, by its definition (a split at the largest power of two below n). */
export function plainTreeHash(leafHashes: readonly Buffer[]): Buffer {
  if (leafHashes.length === 1) return leafHashes[0]!;
  let k = 1;
  while (k * 2 < leafHashes.length) k *= 2;
  return sha256(Uint8Array.of(1), plainTreeHash(leafHashes.slice(0, k)), plainTreeHash(leafHashes.slice(k)));
}

/** The service's checkpoint once it covers `size` results (and, with `mustContain`, holds that text), polled for up to 10 s. */
export async function checkpointCovering(serviceUrl: string, size: number, mustContain = ''): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${serviceUrl}/v1/log/checkpoint`);
    const note = res.status === 200 ? await res.text() : '';
    if (Number(note.split('\n')[1]) >= size && note.includes(mustContain)) return note;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no checkpoint of ${size} leaves${mustContain ? ` holding "${mustContain}"` : ''}`);
}

/** One paid uptime result (a quick operation), paid with `pay`: its digest and the leaf its answer names. */
export async function paidUptimeResult(serviceUrl: string, pay: typeof fetch, target: string): Promise<{ sha256: string; leafIndex: number }> {
  const uptime = findOperation('mcp.verify.uptime')!;
  const res = await pay(`${serviceUrl}${uptime.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...(uptime.example as object), target }) });
  if (res.status !== 200) throw new Error(`the paid uptime call answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { sha256: string };
  return { sha256: body.sha256, leafIndex: Number(res.headers.get('x-log-leaf-index')) };
}
