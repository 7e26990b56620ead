import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concretePath, readSpec, routesFromSpec } from '../support/spec-routes.ts';
import { startTestService, type TestService } from '../support/service.ts';

const specRoutes = routesFromSpec(readSpec());
const sharedSpec = new URL('../../../shared/spec/service-interface.md', import.meta.url);

describe('every route of the specification', () => {
  let service: TestService;
  let openapi: { paths: Record<string, Record<string, unknown>>; openapi: string; info: { version: string } };

  beforeAll(async () => {
    service = await startTestService();
    openapi = (await (await fetch(`${service.url}/openapi.json`)).json()) as typeof openapi;
  });
  afterAll(() => service.stop());

  it('reads the whole route list out of the spec text', () => {
    // 40 priced + the free routes the spec names (its own count of 101 paths is not consistent
    // with its tables; the tables are what we implement).
    expect(specRoutes.length).toBeGreaterThanOrEqual(95);
    expect(specRoutes.filter((r) => r.path.endsWith('/public-key'))).toHaveLength(22);
  });

  it.skipIf(!existsSync(sharedSpec))('tests against the current contract (vendored copy equals the shared spec)', () => {
    expect(readSpec()).toBe(readFileSync(sharedSpec, 'utf8'));
  });

  it('is documented in /openapi.json (OpenAPI 3.1.0, info.version 2.0.0)', () => {
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.info.version).toBe('2.0.0');
    const missing = specRoutes.filter((r) => !openapi.paths[r.path]?.[r.method.toLowerCase()]);
    expect(missing).toEqual([]);
  });

  it('is routed: no route of the spec answers 404 or 405', async () => {
    const unrouted: string[] = [];
    for (const r of specRoutes) {
      const res = await fetch(`${service.url}${concretePath(r.path)}`, {
        method: r.method,
        headers: r.method === 'POST' ? { 'content-type': 'application/json' } : {},
        body: r.method === 'POST' ? '{}' : undefined,
      });
      await res.arrayBuffer();
      if (res.status === 404 || res.status === 405) unrouted.push(`${r.method} ${r.path} -> ${res.status}`);
    }
    expect(unrouted).toEqual([]);
  });

  it('prices every priced route as the spec does, in the documents', () => {
    const priced = [...readSpec().matchAll(/^\|\s*(GET|POST)\s*\|\s*(\/\S+)\s*\|\s*(\d+\.\d\d)\s*\|/gm)];
    expect(priced).toHaveLength(40);
    for (const m of priced) {
      const op = openapi.paths[m[2]!]?.[m[1]!.toLowerCase()] as { 'x-price'?: string; 'x-price-atomic'?: string } | undefined;
      expect(op?.['x-price'], `${m[1]} ${m[2]}`).toBe(m[3]);
      expect(op?.['x-price-atomic']).toBe(String(Math.round(Number(m[3]) * 1_000_000)));
    }
  });
});
