import { it } from 'vitest';
import { findOperation } from '../src/catalog/index.ts';
import { testCallContext } from './support/call-context.ts';
const which = process.env['CASE'] ? Number(process.env['CASE']) : -1;
const cases: Array<[string, unknown]> = [
  ['sec-extract', { document: '<div>'.repeat(190_000) + 'x' }],
  ['utils.code-review-brief', { files: [{ path: 'a.js', content: 'x = ' + '('.repeat(90_000) + '1' + ')'.repeat(90_000) + ';' }] }],
  ['utils.code-review-brief', { files: [{ path: 'a.ts', content: 'let x = ' + '['.repeat(90_000) + ']'.repeat(90_000) + ';' }] }],
  ['utils.doc-convert', { text: '>'.repeat(90_000) + ' x', from: 'markdown', to: 'pdf' }],
  ['utils.doc-convert', { text: '- '.repeat(20_000) + 'x', from: 'markdown', to: 'json' }],
  ['utils.doc-convert', { text: '*'.repeat(45_000) + 'x' + '*'.repeat(45_000), from: 'markdown', to: 'markdown' }],
  ['utils.schema-cleanup', { input: '['.repeat(90_000), format: 'auto' }],
  ['utils.schema-cleanup', { input: '{"a":'.repeat(15_000) + '1' + '}'.repeat(15_000), format: 'auto' }],
  ['utils.pii-redact', { text: 'a'.repeat(90_000) + '@', mode: 'tag' }],
  ['utils.invoice-extract', { text: '1'.repeat(90_000) }],
  ['utils.translate-doc', { text: 'a '.repeat(45_000), source_lang: 'en', target_lang: 'de' }],
];
it('deep', async () => {
  for (const [i, [id, input]] of cases.entries()) {
    if (which >= 0 && i !== which) continue;
    const op = findOperation(id)!;
    const p = op.input.safeParse(input);
    if (!p.success) { process.stdout.write(`DEEP ${i} ${id} schema-refused ${p.error.issues[0]?.message.slice(0, 100)}\n`); continue; }
    const ctx = testCallContext();
    const pre = op.precheck?.(p.data, ctx.settings, ctx.now) ?? (await op.precheckState?.(p.data, ctx));
    if (pre) { process.stdout.write(`DEEP ${i} ${id} precheck ${pre.error}\n`); continue; }
    const t = performance.now();
    try { await op.command!.execute(p.data, ctx); process.stdout.write(`DEEP ${i} ${id} ok ${(performance.now() - t).toFixed(0)} ms\n`); }
    catch (e) { process.stdout.write(`DEEP ${i} ${id} THREW ${(e as Error).name}: ${(e as Error).message.slice(0, 150)} after ${(performance.now() - t).toFixed(0)} ms\n`); }
  }
}, 600_000);
