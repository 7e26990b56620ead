import { isValidServiceName, validateDiscoveryExtension, type DiscoveryExtension } from '@x402/extensions/bazaar';
import { beforeAll, describe, expect, it } from 'vitest';
import { freeRoutes, pricedOperations } from '../../src/catalog/index.ts';
import { useTestService } from '../support/service.ts';

const service = useTestService();
const get = async <T>(path: string) => (await (await fetch(`${service.url}${path}`)).json()) as T;

interface Tool {
  name: string;
  operationId: string;
  method: string;
  url: string;
  status: string;
  verifyUrl?: string;
}
interface Item {
  resource: string;
  method: string;
  lastUpdated: string;
  serviceName: string;
  extensions: { bazaar: DiscoveryExtension };
}

let tools: Tool[];
let items: Item[];
beforeAll(async () => {
  tools = (await get<{ tools: Tool[] }>('/mcp.json')).tools;
  items = (await get<{ items: Item[] }>('/.well-known/x402')).items;
});

/** The URL as this test reaches it: the documents name the configured base URL. */
const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, service.url);

describe('discovery documents that tell the truth', () => {
  it('MCP tool names are valid LLM function names (^[a-zA-Z0-9_-]{1,64}$), unique, with the operation id beside them', () => {
    expect(tools.length).toBe(40);
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(tools.find((t) => t.operationId === 'veritrack.attest')?.name).toBe('veritrack_attest');
  });

  it('every bazaar item is complete (lastUpdated included) and passes @x402/extensions validators', () => {
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(Number.isNaN(Date.parse(item.lastUpdated))).toBe(false);
      expect(isValidServiceName(item.serviceName)).toBe(true);
      const result = validateDiscoveryExtension(item.extensions.bazaar);
      expect(result.errors ?? [], item.resource).toEqual([]);
      expect(result.valid).toBe(true);
    }
  });

  it('every URL the documents advertise answers as advertised', async () => {
    for (const tool of tools) {
      const res = await fetch(local(tool.url), { method: tool.method, headers: { 'content-type': 'application/json' }, ...(tool.method === 'POST' ? { body: '{}' } : {}) });
      // Built: quoted (402) or refused for its input (422), never a 404; not built: 501, as the tool says.
      if (tool.status === 'available') expect([402, 422], `${tool.method} ${tool.url}`).toContain(res.status);
      else expect(res.status, tool.url).toBe(501);
      if (tool.verifyUrl) expect((await fetch(local(tool.verifyUrl.replace('{attestation_id}', 'x')), { method: 'GET' })).status, tool.verifyUrl).not.toBe(404);
    }
    for (const item of items) expect((await fetch(local(item.resource), { method: item.method })).status, item.resource).not.toBe(404);
    const card = await get<{ interfaces: Array<{ type: string; url: string; contract: string }>; documentationUrl: string }>('/.well-known/agent-card.json');
    for (const url of [...card.interfaces.filter((i) => i.type !== 'mcp').flatMap((i) => [i.url, i.contract]), card.documentationUrl]) expect((await fetch(local(url))).status, url).toBe(200);
    // The MCP interface answers the protocol's initialize.
    const mcp = card.interfaces.find((i) => i.type === 'mcp')!;
    const manifest = await get<{ server: { url: string } }>('/mcp.json');
    expect(manifest.server.url).toBe(mcp.url);
    const init = await fetch(local(mcp.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    expect(((await init.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBeTruthy();
    const llms = await (await fetch(`${service.url}/llms.txt`)).text();
    for (const [, url] of llms.matchAll(/\]\((https?:\/\/[^)]+)\)/g)) if (!url!.endsWith('/mcp')) expect((await fetch(local(url!))).status, url).not.toBe(404);
  });

  it('every signed result names a free route that re-checks it (verifyUrl), and that route is in the catalogue', () => {
    const free = new Set(freeRoutes().map((r) => `${r.method} ${r.path}`));
    for (const op of pricedOperations().filter((o) => o.command && o.keyFamily)) {
      expect(op.verifyPath, op.id).toBeDefined();
      const path = op.verifyPath!.replace(/\{[^}]+\}/g, (name) => `:${name.slice(1, -1)}`);
      expect(free.has(`GET ${path}`) || free.has(`POST ${path}`), `${op.id} -> ${op.verifyPath}`).toBe(true);
    }
  });

  it('every path template of /openapi.json names its parameters whole, each declared as a path parameter', async () => {
    const openapi = await get<{ paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> }>('/openapi.json');
    const templated = Object.entries(openapi.paths).filter(([path]) => path.includes('{'));
    expect(templated.length).toBeGreaterThan(0);
    for (const [path, operations] of templated) {
      // A template ends each parameter at a / (no '{sha}256').
      expect(path, path).toMatch(/^(?:\/(?:[^/{}]+|\{[A-Za-z_][A-Za-z0-9_]*\}))+$/);
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const operation of Object.values(operations)) expect((operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name).sort(), path).toEqual([...names].sort());
    }
  });

  it('the discovery documents are served cacheable (Cache-Control), the same bytes each time, with their content types', async () => {
    for (const [path, type] of [['/openapi.json', 'application/json'], ['/mcp.json', 'application/json'], ['/.well-known/x402', 'application/json'], ['/.well-known/agent-card.json', 'application/json'], ['/llms.txt', 'text/markdown']] as const) {
      const [first, second] = await Promise.all([fetch(`${service.url}${path}`), fetch(`${service.url}${path}`)]);
      expect(first.headers.get('content-type')).toContain(type);
      expect(first.headers.get('cache-control')).toBe('public, max-age=300');
      expect(await first.text()).toBe(await second.text());
    }
  });

  it('the agent card claims no transport the service does not speak', async () => {
    const card = await get<Record<string, unknown>>('/.well-known/agent-card.json');
    expect(card).not.toHaveProperty('preferredTransport');
  });
});
