import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pricedOperations } from '../src/catalog/index.ts';
import type { PricedOperation } from '../src/kernel/operation.ts';
import { createPayingFetch } from './support/paying-client.ts';

/**
 * `npm start` runs the bundle of dist/ (scripts/bundle.mjs), while every other test runs the
 * TypeScript sources: so the bundle is held here to what the modules of dist/ answer, operation
 * by operation. The bundle rewrites how its modules find their own files (data sets, engine and
 * worker scripts, the files of the packages it holds), and leaves what the service loads lazily
 * to its first use: the service's own modules from chunks of the bundle, packages (the x402 quote
 * libraries, the upload parser, the PDF libraries) through Node.
 */
const root = new URL('..', import.meta.url).pathname;
const BUNDLE = join(root, 'dist', 'bundle', 'main.js');
const MODULES = join(root, 'dist', 'main.js');

interface Started {
  url: string;
  child: ChildProcess;
  dataDir: string;
  stderr(): string;
}

async function start(entry: string): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'attest-bundle-'));
  const child = spawn(process.execPath, [entry], { cwd: root, env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', EVENTSTORE_URL: '', ATTESTATION_SECRET: 'bundle-test-secret-0123456789abcdef0123' } });
  let seen = '';
  child.stderr!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start in 30 s: ${seen}`)), 30_000);
    child.stderr!.on('data', () => {
      const match = /Listening on (\S+) /.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!.replace('localhost', '127.0.0.1'));
      }
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited ${code}: ${seen}`)));
  });
  return { url, child, dataDir, stderr: () => seen };
}

async function stop(service: Started | undefined): Promise<void> {
  if (!service) return;
  const exited = service.child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => service.child.once('exit', resolve));
  service.child.kill('SIGTERM');
  await exited;
  rmSync(service.dataDir, { recursive: true, force: true });
}

/** The operation's catalogue example, sent as its route takes input, paid by the official x402 client. */
function callExample(op: PricedOperation, base: string, pay: typeof fetch): Promise<Response> {
  if (op.inputFrom === 'multipart') {
    // Refused before the quote (not an image or a PDF): the upload parser runs, no OCR.
    const form = new FormData();
    form.append('file', new Blob(['not an invoice'], { type: 'text/plain' }), 'invoice.txt');
    return pay(`${base}${op.path}`, { method: 'POST', body: form });
  }
  if (op.method === 'GET') return pay(`${base}${op.path}?${new URLSearchParams(op.example as Record<string, string>)}`);
  return pay(`${base}${op.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(op.example) });
}

/** What must not differ between the two: the status, the kind of body, its members, and for a signed answer its signing key. */
async function shapeOf(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  const body = type.includes('json') ? ((await response.json()) as Record<string, unknown>) : undefined;
  if (!body) await response.arrayBuffer();
  return { status: response.status, type, members: body && Object.keys(body).sort(), keyId: body?.['keyId'], error: body?.['error'] };
}

describe('the bundle npm start runs', () => {
  let bundled: Started | undefined;
  let modules: Started | undefined;

  beforeAll(async () => {
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    [bundled, modules] = await Promise.all([start(BUNDLE), start(MODULES)]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([stop(bundled), stop(modules)]);
  });

  it('quotes as the modules do: the same 402, the same discovery documents', async () => {
    const op = pricedOperations().find((o) => o.id === 'veritrack.attest')!;
    const quote = async (base: string) => {
      const response = await fetch(`${base}${op.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(op.example) });
      const required = JSON.parse(Buffer.from(response.headers.get('payment-required') ?? '', 'base64').toString('utf8')) as { accepts: unknown; resource: { url: string } };
      return { status: response.status, accepts: required.accepts, resource: required.resource.url.replace(base, '') };
    };
    expect(await quote(bundled!.url)).toEqual(await quote(modules!.url));
    // The manifest stamps each item with when its quote was made (lastUpdated): that alone may differ.
    const documents = async (base: string, path: string) => (await (await fetch(`${base}${path}`)).text()).replaceAll(base, '<base>').replace(/"lastUpdated":"[^"]*"/g, '"lastUpdated":"<time>"');
    for (const path of ['/openapi.json', '/.well-known/x402']) expect(await documents(bundled!.url, path), path).toBe(await documents(modules!.url, path));
  }, 60_000);

  it('serves MCP as the modules do: the same tools, the same unpaid answer', async () => {
    const overMcp = async (base: string) => {
      const client = new Client({ name: 'bundle-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
      try {
        const { tools } = await client.listTools();
        const unpaid = await client.callTool({ name: 'veritrack_attest', arguments: { kind: 'demo', claim: { a: 1 } } });
        return JSON.parse(JSON.stringify({ tools, unpaid }).replaceAll(base, '<base>')) as unknown;
      } finally {
        await client.close();
      }
    };
    expect(await overMcp(bundled!.url)).toEqual(await overMcp(modules!.url));
  }, 60_000);

  it.each(pricedOperations().filter((op) => op.command).map((op) => [op.id, op] as const))('%s: its example answers as the modules of dist/ answer it', async (_id, op) => {
    const pay = createPayingFetch();
    const [fromBundle, fromModules] = await Promise.all([callExample(op, bundled!.url, pay), callExample(op, modules!.url, pay)]);
    expect(await shapeOf(fromBundle)).toEqual(await shapeOf(fromModules));
  }, 120_000);

  it('wrote nothing to stderr but its start line', () => {
    expect(bundled!.stderr().trim().split('\n')).toEqual([expect.stringMatching(/^Listening on /)]);
  });
});
