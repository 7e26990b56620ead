import { generate } from 'json-schema-faker';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestService } from '../support/service.ts';

/**
 * What /openapi.json accepts, the service accepts: inputs generated from each built priced
 * operation's published request schema are quoted (402), never refused as invalid. The only 422s
 * allowed are the documented outcomes an operation decides before the quote, each under its own
 * error code (a cap, a check after the call, a lease that does not exist); never a 5xx.
 */
const SAMPLES = 12;

interface OpenApiOperation {
  'x-price'?: string;
  'x-status'?: string;
  parameters: Array<{ name: string; required: boolean; schema: unknown }>;
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } };
}

const service = useTestService();
let document: { paths: Record<string, Record<string, OpenApiOperation>>; components: unknown };
beforeAll(async () => {
  document = (await (await fetch(`${service.url}/openapi.json`)).json()) as typeof document;
});

function requestSchema(method: string, op: OpenApiOperation): Record<string, unknown> {
  if (method === 'get') {
    return { type: 'object', properties: Object.fromEntries(op.parameters.map((p) => [p.name, p.schema])), required: op.parameters.filter((p) => p.required).map((p) => p.name) };
  }
  return op.requestBody!.content['application/json'].schema;
}

describe('schema-valid inputs of every priced operation', () => {
  it('are quoted, or answered with a documented pre-quote outcome; never refused as invalid, never a 5xx', async () => {
    const mismatches: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op['x-price'] || op['x-status'] !== 'available') continue;
        // A file upload's documented body is a binary file, not a JSON schema to sample: its refusals are tested with the operation.
        if (method !== 'get' && !op.requestBody?.content['application/json']) continue;
        for (let seed = 1; seed <= SAMPLES; seed++) {
          const sample = (await generate({ ...requestSchema(method, op), components: document.components } as never, { seed, maxItems: 3, alwaysFakeOptionals: seed % 2 === 0 } as never)) as Record<string, unknown>;
          delete sample['components'];
          const url = method === 'get' ? `${service.url}${path}?${new URLSearchParams(sample as Record<string, string>)}` : `${service.url}${path}`;
          const res = await fetch(url, method === 'get' ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sample) });
          checked++;
          const body = (await res.json()) as { error?: string; message?: string };
          const documented = res.status === 422 && body.error !== 'validation_error';
          if (res.status !== 402 && !documented) mismatches.push(`${method.toUpperCase()} ${path} seed ${seed}: ${res.status} ${body.message ?? ''}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(mismatches).toEqual([]);
  }, 120_000);
});
