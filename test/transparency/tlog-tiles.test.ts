import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckpoint } from '../../src/transparency/c2sp-checkpoint.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { checkpointCovering, paidUptimeResult, plainLeafHash, plainTreeHash } from '../support/result-log-client.ts';

/**
 * A monitor of the result log as C2SP tlog-tiles describes one: it reads the checkpoint, then
 * only static tiles and entry bundles, and computes the root itself with RFC 6962's hashing,
 * written out here independently of the service's tree.
 */
const pay = createPayingFetch();
const paidResult = async (target: string) => (await paidUptimeResult(service.url, pay, target)).sha256;
let service: TestService;
beforeAll(async () => {
  service = await startTestService({ LOG_CHECKPOINT_INTERVAL_MS: '100' });
});
afterAll(() => service.stop());



/** The raw answer, without fetch's transparent decompression: what went over the wire. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function entriesOf(bundle: Buffer): Buffer[] {
  const entries: Buffer[] = [];
  for (let at = 0; at < bundle.length; at += 2 + bundle.readUInt16BE(at)) entries.push(bundle.subarray(at + 2, at + 2 + bundle.readUInt16BE(at)));
  return entries;
}

describe('the result log over C2SP tlog-tiles (prefix /v1/log)', () => {
  it('gives a monitor the leaves and hashes from which it computes the signed root, each paid result among them', async () => {
    const results = [await paidResult('https://a.example/mcp'), await paidResult('https://b.example/mcp'), await paidResult('https://c.example/mcp')];
    const info = (await (await fetch(`${service.url}/v1/log`)).json()) as { tlog_tiles: string };
    expect(info.tlog_tiles).toBe(`${service.url}/v1/log`);
    const note = await checkpointCovering(service.url, 3);
    const logKey = ((await (await fetch(`${service.url}/v1/log/public-key`)).json()) as { publicKey: string }).publicKey;
    const opened = openCheckpoint(note, note.split('\n')[0]!, logKey);
    if (!opened.valid) throw new Error(opened.reason);
    const size = opened.checkpoint.treeSize;

    const tile = await fetch(`${info.tlog_tiles}/tile/0/000.p/${size}`);
    expect(tile.status).toBe(200);
    expect(tile.headers.get('content-type')).toBe('application/octet-stream');
    expect(tile.headers.get('cache-control')).toContain('immutable');
    const tileBytes = Buffer.from(await tile.arrayBuffer());
    const leafHashes = Array.from({ length: size }, (_, i) => tileBytes.subarray(i * 32, (i + 1) * 32));
    expect(tileBytes).toHaveLength(32 * size);
    expect(plainTreeHash(leafHashes).toString('hex')).toBe(opened.checkpoint.rootHash);

    const bundle = await rawGet(`/v1/log/tile/entries/000.p/${size}`, { 'accept-encoding': 'identity' });
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-encoding']).toBeUndefined();
    const entries = entriesOf(bundle.body);
    expect(entries).toHaveLength(size);
    entries.forEach((entry, i) => expect(plainLeafHash(entry).equals(leafHashes[i]!)).toBe(true));
    const leaves = entries.map((entry) => JSON.parse(entry.toString('utf8')) as { key_family: string; sha256: string });
    for (const result of results) expect(leaves).toContainEqual(expect.objectContaining({ key_family: 'uptime', sha256: result }));
  });

  it('gzips an entry bundle for a client that accepts gzip, and the bytes are the same', async () => {
    const size = Number((await checkpointCovering(service.url, 1)).split('\n')[1]);
    const plain = await rawGet(`/v1/log/tile/entries/000.p/${size}`, { 'accept-encoding': 'identity' });
    const gzipped = await rawGet(`/v1/log/tile/entries/000.p/${size}`, { 'accept-encoding': 'gzip, identity' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['vary']).toContain('Accept-Encoding');
    const { gunzipSync } = await import('node:zlib');
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
  });

  it('answers 422 for a path that names no tile, and 404 for a tile the signed tree does not hold yet', async () => {
    const size = Number((await checkpointCovering(service.url, 1)).split('\n')[1]);
    for (const path of ['0/1', '0/000.p/256', '00/000', 'entries/000.p/0']) {
      const res = await fetch(`${service.url}/v1/log/tile/${path}`);
      expect(res.status, path).toBe(422);
      expect(((await res.json()) as { error: string }).error).toBe('bad_tile_path');
    }
    for (const path of ['0/000', `0/000.p/${size + 1}`, '1/000.p/1', 'entries/001']) {
      const res = await fetch(`${service.url}/v1/log/tile/${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: string }).error).toBe('tile_not_in_tree');
    }
  });

  it('is in the OpenAPI document, as one path parameter spanning the tile path', async () => {
    const openapi = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, { get?: { parameters?: Array<{ name: string; in: string }> } }> };
    expect(openapi.paths['/v1/log/tile/{tile}']?.get?.parameters).toContainEqual(expect.objectContaining({ name: 'tile', in: 'path' }));
  });
});
