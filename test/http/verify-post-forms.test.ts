import { describe, expect, it } from 'vitest';
import { freeRoutes } from '../../src/catalog/index.ts';
import { MAX_HEADER_BYTES } from '../../src/kernel/limits.ts';
import { verifyResultSchema } from '../../src/kernel/route-kit/verify-route.ts';
import { mcpTools } from '../../src/mcp/server.ts';
import { inputJsonSchema } from '../../src/payments/x402/quote.ts';
import type { JsonObject } from '../../src/signing/rfc8785.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { postTo, useTestService } from '../support/service.ts';

/**
 * Records a paid call makes can be too large for a URL: 8 KiB behind some proxies, 64 KiB at this
 * server. Every verify route therefore takes its parameters as a JSON body on POST too, and
 * answers exactly as on GET. The records here come from real paid calls with large, valid input.
 */

const service = useTestService();
const pay = createPayingFetch();

type Params = Record<string, string>;

const verifyRoutes = freeRoutes().filter((r) => r.output === verifyResultSchema);

async function paidCall(path: string, input: unknown): Promise<JsonObject> {
  const res = await postTo(service, path, input, pay);
  const body = (await res.json()) as JsonObject;
  expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(200);
  return body;
}

async function onGet(path: string, params: Params): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${service.url}${path}?${new URLSearchParams(params)}`);
  return { status: res.status, body: await res.json() };
}

async function onPost(path: string, params: Params): Promise<{ status: number; body: unknown }> {
  const res = await postTo(service, path, params);
  return { status: res.status, body: await res.json() };
}

const urlLength = (path: string, params: Params) => `${path}?${new URLSearchParams(params)}`.length;

/** One character changed at or after index i: a digit stays a digit, anything else becomes x (or y). */
function changeCharacterAt(text: string, i: number): string {
  const c = text[i]!;
  const replacement = /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : c === 'x' ? 'y' : 'x';
  return `${text.slice(0, i)}${replacement}${text.slice(i + 1)}`;
}

const changeOneCharacter = (text: string): string => changeCharacterAt(text, Math.floor(text.length / 2));

/** One character of a JSON text changed from the middle on, where it stays JSON: the refusal is then the signature's, not the parser's. */
function changeOneJsonCharacter(json: string): string {
  for (let i = Math.floor(json.length / 2); i < json.length; i++) {
    const changed = changeCharacterAt(json, i);
    try {
      JSON.parse(changed);
      return changed;
    } catch {
      // a structural character: try the next one
    }
  }
  throw new Error('no character of the second half can change and stay JSON');
}

const flipFirstHex = (hex: string) => `${hex[0] === '0' ? '1' : '0'}${hex.slice(1)}`;

/** The body verify routes' parameters for a signed member of a paid answer. */
const bodyParams = (answer: JsonObject, member: string): Params => ({
  body: JSON.stringify(answer[member]),
  sha256: answer['sha256'] as string,
  signature: answer['ed25519Sig'] as string,
});

/**
 * The record re-checks valid on POST and every tamper is refused; on GET, the same answers
 * where the URL fits, and 431 where it does not.
 */
async function expectPostForm(path: string, genuine: Params, tampers: Params[], family: string): Promise<void> {
  const post = await onPost(path, genuine);
  expect(post).toMatchObject({ status: 200, body: { valid: true, checks: { sha256: true, signature: true }, family } });
  const tamperedAnswers = [];
  for (const tamper of tampers) {
    const answer = await onPost(path, { ...genuine, ...tamper });
    expect(answer.status).toBe(200);
    expect((answer.body as { valid: boolean }).valid, Object.keys(tamper).join()).toBe(false);
    tamperedAnswers.push(answer);
  }
  if (urlLength(path, genuine) > MAX_HEADER_BYTES) {
    expect((await onGet(path, genuine)).status).toBe(431);
    return;
  }
  expect(await onGet(path, genuine)).toEqual(post);
  for (const [i, tamper] of tampers.entries()) expect(await onGet(path, { ...genuine, ...tamper })).toEqual(tamperedAnswers[i]);
}

describe('every verify route takes its parameters as a JSON body on POST too', () => {
  it('a POST form at the path of every GET verify route, with the same parameters', () => {
    const gets = verifyRoutes.filter((r) => r.method === 'GET');
    expect(gets.length).toBeGreaterThanOrEqual(14);
    for (const get of gets) {
      const post = verifyRoutes.find((r) => r.method === 'POST' && r.path === get.path);
      expect(post, get.path).toBeDefined();
      expect(inputJsonSchema(post!.input!), get.path).toEqual(inputJsonSchema(get.input!));
      expect(post!.inputFrom, get.path).toBe('query-or-json');
    }
  });

  it('/openapi.json documents both forms, the POST one with a JSON request body', async () => {
    const paths = ((await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> }).paths;
    for (const get of verifyRoutes.filter((r) => r.method === 'GET')) {
      expect(paths[get.path]?.['get'], get.path).toBeDefined();
      expect(paths[get.path]?.['post']?.requestBody?.content['application/json'], get.path).toBeDefined();
    }
  });

  it('the MCP server offers one verify tool per path: tool arguments travel in a body already', () => {
    const tools = [...mcpTools(freeRoutes()).values()].filter((t) => t.route.output === verifyResultSchema);
    const paths = tools.map((t) => t.route.path);
    expect(paths.sort()).toEqual([...new Set(verifyRoutes.map((r) => r.path))].sort());
  });
});

describe('records too large for a URL re-check on POST; where the URL fits, GET answers the same', () => {
  it('agent: a memory put of a value near the 64 KiB cap', async () => {
    const answer = await paidCall('/v1/memory/put', { agent_id: 'post-form-agent', key: 'notes', value: { note: '界'.repeat(21_000) } });
    const genuine = bodyParams(answer, 'sealed');
    expect(urlLength('/v1/memory/verify', genuine)).toBeGreaterThan(MAX_HEADER_BYTES);
    await expectPostForm('/v1/memory/verify', genuine, [{ body: changeOneJsonCharacter(genuine['body']!) }, { signature: flipFirstHex(genuine['signature']!) }], 'memory');
  });

  it('agent: a small memory put answers the same on GET and POST', async () => {
    const answer = await paidCall('/v1/memory/put', { agent_id: 'post-form-agent', key: 'small', value: { note: '界'.repeat(1_000) } });
    const genuine = bodyParams(answer, 'sealed');
    expect(urlLength('/v1/memory/verify', genuine)).toBeGreaterThan(8 * 1024);
    expect(urlLength('/v1/memory/verify', genuine)).toBeLessThan(MAX_HEADER_BYTES);
    await expectPostForm('/v1/memory/verify', genuine, [{ body: changeOneJsonCharacter(genuine['body']!) }, { sha256: flipFirstHex(genuine['sha256']!) }], 'memory');
  });

  it('forensics: an evidence entry with a 100 KB payload', async () => {
    const lines = Array.from({ length: 2_000 }, (_, i) => `deploy step ${i}: image pulled, health check passed`);
    const answer = await paidCall('/v1/evidence/ingest', { action: 'model.deployed', actor: 'did:web:ops.example', payload: { lines } });
    const genuine = bodyParams(answer, 'sealed');
    expect(urlLength('/v1/evidence/verify', genuine)).toBeGreaterThan(MAX_HEADER_BYTES);
    await expectPostForm('/v1/evidence/verify', genuine, [{ body: changeOneJsonCharacter(genuine['body']!) }, { signature: flipFirstHex(genuine['signature']!) }], 'evidence');
  });

  it('forensics: a data snapshot of 3,000 rows', async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({ date: `day-${i}`, value: 1 + i / 10_000 }));
    const answer = await paidCall('/v1/data/signed-snapshot', { series: 'EUR/USD daily', rows, citations: ['https://data.ecb.europa.eu/data/datasets/EXR'], fetchedAt: 1_767_225_000 });
    const genuine = bodyParams(answer, 'evidenceCore');
    expect(urlLength('/v1/data/verify', genuine)).toBeGreaterThan(MAX_HEADER_BYTES);
    await expectPostForm('/v1/data/verify', genuine, [{ body: changeOneJsonCharacter(genuine['body']!) }, { sha256: flipFirstHex(genuine['sha256']!) }], 'data');
  });

  it('security: a containment registration with an 80 KB declared policy', async () => {
    const answer = await paidCall('/v1/containment/register', {
      agent_did: 'did:web:post-form.example',
      policy: { runbook: 'throttle to read-only, then page the on-call engineer. '.repeat(1_500) },
    });
    const genuine = bodyParams(answer, 'evidenceCore');
    expect(urlLength('/v1/containment/verify', genuine)).toBeGreaterThan(MAX_HEADER_BYTES);
    await expectPostForm('/v1/containment/verify', genuine, [{ body: changeOneJsonCharacter(genuine['body']!) }, { signature: flipFirstHex(genuine['signature']!) }], 'containment');
  });

  it('documents: a PII redaction whose output beside the receipt is 150 KB', async () => {
    const text = `${'The quarterly report is attached for review. '.repeat(3_300)}Contact jane.doe@example.com.`;
    const answer = await paidCall('/v1/utils/pii-redact', { text });
    const genuine: Params = {
      kind: answer['kind'] as string,
      utility: answer['utility'] as string,
      served_at: String(answer['servedAt']),
      result: JSON.stringify(answer['utility_result']),
      sha256: answer['sha256'] as string,
      signature: answer['ed25519Sig'] as string,
      output: answer['output'] as string,
    };
    expect(urlLength('/v1/utils/verify', genuine)).toBeGreaterThan(MAX_HEADER_BYTES);
    const withOutput = await onPost('/v1/utils/verify', genuine);
    expect(withOutput).toMatchObject({ status: 200, body: { valid: true, checks: { sha256: true, signature: true, output_sha256: true } } });
    await expectPostForm('/v1/utils/verify', genuine, [{ output: changeOneCharacter(genuine['output']!) }, { served_at: String(Number(genuine['served_at']) + 1) }], 'utils');
    // The receipt alone fits a URL: GET and POST answer the same.
    const { output: _output, ...receiptOnly } = genuine;
    await expectPostForm('/v1/utils/verify', receiptOnly, [{ result: changeOneJsonCharacter(receiptOnly['result']!) }, { signature: flipFirstHex(receiptOnly['signature']!) }], 'utils');
  });

  it('trust: a receipt of 20 KB in a URL answers the same on GET and POST', async () => {
    const input = { receiptType: 'payment', tx: '0xabc123', action: '界'.repeat(500), actor: '界'.repeat(500), metadata: { note: '界'.repeat(1_300) } };
    const answer = await paidCall('/v1/receipts/mint', input);
    const genuine: Params = {
      kind: 'receipt',
      receipt_type: input.receiptType,
      tx: input.tx,
      action: input.action,
      actor: input.actor,
      metadata: JSON.stringify(answer['metadata']),
      mints_at: String(answer['mintsAt']),
      sha256: answer['sha256'] as string,
      signature: answer['ed25519Sig'] as string,
    };
    expect(urlLength('/v1/receipts/verify', genuine)).toBeGreaterThan(8 * 1024);
    await expectPostForm('/v1/receipts/verify', genuine, [{ metadata: changeOneJsonCharacter(genuine['metadata']!) }, { mints_at: String(Number(genuine['mints_at']) - 1) }, { tx: '0xabc124' }], 'receipts');
  });
});
