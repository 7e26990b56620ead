import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestService } from '../support/service.ts';

const service = useTestService();
let document: Record<string, unknown>;
beforeAll(async () => {
  document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Record<string, unknown>;
});

/** Lint warnings we keep, each for a reason written in docs/architecture.md. */
const JUSTIFIED_WARNINGS = new Set(['info-license', 'no-server-example.com']);

describe('/openapi.json as other people\'s tools read it', () => {
  it('is valid for @apidevtools/swagger-parser (every $ref resolves)', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('is valid for a second, independent validator (@seriousme/openapi-schema-validator, OpenAPI 3.1 schema)', async () => {
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has no Redocly lint error under the recommended rules, and only the justified warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), config });
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect([...new Set(problems.map((p) => p.ruleId))].filter((rule) => !JUSTIFIED_WARNINGS.has(rule))).toEqual([]);
  });

  it('marks free routes as needing no credentials and priced ones as paid with x402', () => {
    const paths = document['paths'] as Record<string, Record<string, { security?: unknown[] }>>;
    expect(paths['/v1/veritrack/verify']!['get']!.security).toEqual([]);
    expect(paths['/v1/veritrack/attest']!['post']!.security).toEqual([{ x402: [] }]);
  });
});
