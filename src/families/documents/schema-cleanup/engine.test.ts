import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { cleanUp, schemaCleanup } from './engine.ts';

const NOW = 1_767_225_600;

describe('schema cleanup', () => {
  it('a semicolon CSV with a BOM, quoted newlines and mixed date formats comes out clean, with every change listed', () => {
    const csv = '\uFEFFInvoice No;Issue Date;Amount;Note;Paid\r\n"INV-1";31.12.2025;"1200,50";"two\nlines";TRUE\r\nINV-2;2026/01/15;99;;false\r\nINV-3;2026-02-01;"1.250,75";plain;true\r\n';
    const result = cleanUp({ input: csv, format: 'auto' });
    expect(result).toMatchObject({ format: 'csv', delimiter: ';', headers: ['invoice_no', 'issue_date', 'amount', 'note', 'paid'] });
    expect(result.rows).toEqual([
      { invoice_no: 'INV-1', issue_date: '2025-12-31', amount: 1200.5, note: 'two\nlines', paid: true },
      { invoice_no: 'INV-2', issue_date: '2026-01-15', amount: 99, note: null, paid: false },
      { invoice_no: 'INV-3', issue_date: '2026-02-01', amount: 1250.75, note: 'plain', paid: true },
    ]);
    const rules = result.changes.map((c) => `${c.row ?? '-'}:${c.column ?? '-'}:${c.rule}`);
    expect(rules).toEqual(
      expect.arrayContaining([
        '-:-:removed the byte order mark',
        '-:invoice_no:normalised the header to snake_case',
        '0:issue_date:DD.MM.YYYY to ISO 8601',
        '1:issue_date:YYYY/MM/DD to ISO 8601',
        '0:amount:decimal comma to number',
        '2:amount:decimal comma to number',
        '1:amount:text to number',
        '1:note:empty as null',
        '0:paid:text to boolean',
      ]),
    );
    expect(result.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', items: { properties: { issue_date: { type: ['string', 'null'], format: 'date' }, amount: { type: ['number', 'null'] }, paid: { type: ['boolean', 'null'] } } } });
  });

  it('repairs messy JSON, keeps integers beyond 2^53 digit for digit, and lists both', () => {
    const messy = "[{id: 9007199254740993, 'name': 'a', tags: ['x'],}, {\"id\": 12, \"name\": \"b\"} // trailing comment\n";
    const result = cleanUp({ input: messy });
    expect(result.rows).toEqual([
      { id: '9007199254740993', name: 'a', tags: '["x"]' },
      { id: 12, name: 'b', tags: null },
    ]);
    expect(result.changes.map((c) => c.rule)).toEqual(expect.arrayContaining(['repaired the JSON syntax (quotes, commas, brackets, comments, trailing text)', 'kept an integer beyond 2^53 as a string, digit for digit']));
  });

  it('leaves a date whose day and month could swap as text, and says so', () => {
    const result = cleanUp({ input: 'when\n03/04/2026\n25/04/2026\n' });
    expect(result.rows).toEqual([{ when: '03/04/2026' }, { when: '25/04/2026' }]);
    expect(result.changes).toContainEqual({ row: 0, column: 'when', from: '03/04/2026', to: '03/04/2026', rule: 'left as text: the day and month could be either way round' });
  });

  it('signs a receipt that binds the output bytes; the same input gives the same bytes', () => {
    const a = schemaCleanup({ input: 'a,b\n1,2\n' }, NOW);
    const b = schemaCleanup({ input: 'a,b\n1,2\n' }, NOW);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.beside).toEqual({ output: '[{"a":1,"b":2}]\n' });
    expect((a.record['utility_result'] as JsonObject)['output_sha256']).toBe(createHash('sha256').update('[{"a":1,"b":2}]\n').digest('hex'));
  });
});
