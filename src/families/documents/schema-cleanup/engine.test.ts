import { describe, expect, it } from 'vitest';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { runSchemaCleanup, type SchemaCleanupInput } from './engine.ts';

const clean = (input: SchemaCleanupInput) => {
  const { record, beside } = runSchemaCleanup(input, 1_767_225_600);
  const output = JSON.parse(beside!['output'] as string) as { rows: JsonObject[]; schema: JsonObject; changes: Array<Record<string, unknown>>; ambiguities: Array<Record<string, unknown>> };
  return { result: record['utility_result'] as JsonObject, output, record, text: beside!['output'] as string };
};

describe('CSV', () => {
  const csv = '\uFEFFName ;Birth Date;Amount;Account ID\r\n"Smith; J";03.04.2026;"12,50";12345678901234567890\r\n"multi\r\nline";2026/03/04;7; 42 \r\nDoe;25/12/1990;;9\r\n';

  it('a semicolon CSV with a BOM, quoted newlines and mixed dates comes out clean, with every change listed by row and column', () => {
    const { result, output } = clean({ input: csv });
    expect(result).toMatchObject({ outcome: 'CLEANED', format_detected: 'csv', delimiter: ';', row_count: 3, columns: ['name', 'birth_date', 'amount', 'account_id'] });
    expect(output.rows).toEqual([
      { name: 'Smith; J', birth_date: '03.04.2026', amount: 12.5, account_id: '12345678901234567890' },
      { name: 'multi\r\nline', birth_date: '2026-03-04', amount: 7, account_id: 42 },
      { name: 'Doe', birth_date: '1990-12-25', amount: null, account_id: 9 },
    ]);
    const changes = output.changes.map((c) => `${c['row']}/${c['column']}/${c['change']}`);
    expect(changes).toEqual([
      'null/null/bom-removed',
      '0/name/header-normalised', '0/birth_date/header-normalised', '0/amount/header-normalised', '0/account_id/header-normalised',
      '1/amount/decimal-comma-to-point', '1/account_id/integer-beyond-2^53-kept-as-string',
      '2/birth_date/date-normalised', '2/account_id/whitespace-trimmed',
      '3/birth_date/date-normalised', '3/amount/empty-to-null',
    ]);
    expect(output.ambiguities).toEqual([expect.objectContaining({ row: 1, column: 'birth_date', from: '03.04.2026' })]);
    expect(result['change_count']).toBe(11);
  });

  it('cleans a CSV of 150,000 one-column rows (its rows once overflowed the stack as arguments of Math.max)', () => {
    const { result, output } = clean({ input: `a\n${'1\n'.repeat(150_000)}`, format: 'csv' });
    expect(result).toMatchObject({ format_detected: 'csv', row_count: 150_000, columns: ['a'] });
    expect(output.rows.at(-1)).toEqual({ a: 1 });
  });

  it('lists the first 100 changes of each kind and counts them all: a CSV near the size limit gave a 17.7 MB output of changes', () => {
    const { result, output, text } = clean({ input: 'a,b\n' + ' 1, 03/04/2026\n'.repeat(30_000) });
    expect(output.rows).toHaveLength(30_000);
    expect(output.rows.at(-1)).toEqual({ a: 1, b: '03/04/2026' });
    expect(result).toMatchObject({ change_count: 60_000, change_counts: { 'whitespace-trimmed': 60_000 }, changes_listed: 100, ambiguity_count: 30_000, ambiguities_listed: 100 });
    expect(output.changes).toHaveLength(100);
    expect(output.changes.slice(0, 2)).toEqual([
      { row: 1, column: 'a', change: 'whitespace-trimmed', from: ' 1', to: '1' },
      { row: 1, column: 'b', change: 'whitespace-trimmed', from: ' 03/04/2026', to: '03/04/2026' },
    ]);
    expect(output.changes.at(-1)).toMatchObject({ row: 50, column: 'b' });
    expect(output.ambiguities).toHaveLength(100);
    expect(result['limitations']).toContain('The lists are cut: 100 of 60000 changes and 100 of 30000 ambiguities are listed.');
    // The rows are kept whole; the lists add a bounded amount.
    expect(text.length).toBeLessThan(JSON.stringify(output.rows).length + 50_000);
  });

  it('the record lists the first 100 parse errors and counts them all (papaparse reports a malformed quote once or twice a row)', () => {
    const { result } = clean({ input: 'a,b\n' + '"x"y,1\n'.repeat(1_000) });
    expect(result['parse_errors']).toHaveLength(100);
    expect(result['parse_error_count']).toBeGreaterThan(1_000);
  });

  it('a short row keeps what it has, listed once: padding 2,000 one-field rows to 1,000 columns with nulls took 53 s and gave 170 MB', () => {
    const header = Array.from({ length: 1_000 }, (_, i) => `c${i}`).join(',');
    const started = performance.now();
    const { result, output, text } = clean({ input: `${header}\n${'1\n'.repeat(2_000)}` });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ row_count: 2_000, change_count: 2_000, change_counts: { 'fields-missing': 2_000 }, changes_listed: 100 });
    expect(output.rows[0]).toEqual({ c0: 1 });
    expect(output.changes[0]).toEqual({ row: 1, column: 'c1', change: 'fields-missing', to: 999 });
    expect(output.schema['items']).toMatchObject({ required: ['c0'] });
    expect(text.length).toBeLessThan(100_000);
  });

  it('rows of distinct columns are cleaned in linear time: 20,000 one-member JSON objects took 52 s', () => {
    const started = performance.now();
    const { result, output } = clean({ input: '[' + Array.from({ length: 20_000 }, (_, i) => `{"k${i}":1}`).join(',') + ']' });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ row_count: 20_000 });
    expect(output.rows[19_999]).toEqual({ k19999: 1 });
  });

  it('headers stay unique when a repeated one meets a header already named like its suffix: a,a,a_2 lost the second column', () => {
    const { result, output } = clean({ input: 'a,a,a_2\n1,2,3\n' });
    expect(result['columns']).toEqual(['a', 'a_3', 'a_2']);
    expect(output.rows).toEqual([{ a: 1, a_3: 2, a_2: 3 }]);
  });

  it('infers a JSON Schema 2020-12 of the rows', () => {
    const { output } = clean({ input: 'id,when,ok\n1,2026-01-02,true\n2,2026-01-03,false\n' });
    expect(output.schema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer' }, when: { type: 'string', format: 'date' }, ok: { type: 'boolean' } }, required: ['id', 'when', 'ok'], additionalProperties: false },
    });
  });

  it('detects comma and tab delimiters; an untouched table is UNCHANGED', () => {
    expect(clean({ input: 'a\tb\n1\t2\n' }).result).toMatchObject({ delimiter: '\t', outcome: 'UNCHANGED' });
    expect(clean({ input: 'a,b\n"1,5",2\n' }).output.rows).toEqual([{ a: '1,5', b: 2 }]);
  });
});

describe('JSON', () => {
  it('repairs messy JSON, keeps integers beyond 2^53 digit for digit, and says where', () => {
    const { result, output } = clean({ input: "[{name: 'x', 'Big N': 12345678901234567890, tags: [1,2,],}, {name: 'y', 'Big N': 3}]" });
    expect(result['outcome']).toBe('CLEANED');
    expect(output.rows).toEqual([{ name: 'x', big_n: '12345678901234567890', tags: [1, 2] }, { name: 'y', big_n: 3 }]);
    expect(output.changes).toContainEqual(expect.objectContaining({ row: 1, column: 'big_n', path: '/rows/0/big_n', change: 'integer-beyond-2^53-kept-as-string', from: '12345678901234567890', to: '12345678901234567890' }));
    expect(output.changes[0]).toMatchObject({ change: 'json-repaired' });
  });

  it('keeps numbers a double cannot hold as written, however long: 1e400 and a 500-digit integer were a 500 after payment', () => {
    const long = '9'.repeat(500);
    const { result, output, record } = clean({ input: `[{"a":1e400,"b":-1e400,"c":${long},"d":1.5}]` });
    expect(result['outcome']).toBe('CLEANED');
    expect(output.rows).toEqual([{ a: '1e400', b: '-1e400', c: long, d: 1.5 }]);
    expect(output.changes).toContainEqual({ row: 1, column: 'a', path: '/rows/0/a', change: 'number-beyond-a-double-kept-as-string', from: '1e400', to: '1e400', reason: 'beyond the range of an IEEE double' });
    expect(output.changes).toContainEqual(expect.objectContaining({ row: 1, column: 'c', path: '/rows/0/c', change: 'integer-beyond-2^53-kept-as-string', from: long, to: long }));
    expect(() => canonicalText(record)).not.toThrow();
  });

  it('keeps a decimal a double would print differently as written, with its path and why: 0.1000000000000000055511151231257827 was signed as 0.1', () => {
    const price = '0.1000000000000000055511151231257827';
    const { output } = clean({ input: `[{"price": ${price}, "id": 12345678901234567.5, "tags": [1e-400, 2.50, 0.1, -0], "small": 1E2}]` });
    expect(output.rows).toEqual([{ price, id: '12345678901234567.5', tags: ['1e-400', 2.5, 0.1, 0], small: 100 }]);
    expect(output.changes).toEqual([
      { row: 1, column: 'price', path: '/rows/0/price', change: 'decimal-kept-as-string', from: price, to: price, reason: 'not exactly representable as an IEEE double (read as one: 0.1)' },
      { row: 1, column: 'id', path: '/rows/0/id', change: 'decimal-kept-as-string', from: '12345678901234567.5', to: '12345678901234567.5', reason: 'not exactly representable as an IEEE double (read as one: 12345678901234568)' },
      { row: 1, column: 'tags', path: '/rows/0/tags/0', change: 'decimal-kept-as-string', from: '1e-400', to: '1e-400', reason: 'not exactly representable as an IEEE double (read as one: 0)' },
    ]);
  });

  it('a caller string that looks like the old internal mark of big numbers stays the caller string', () => {
    const { result, output } = clean({ input: '[{"a":"\\u0000big-integer:5","b":"\\u0000big-integer:1e400"}]' });
    expect(output.rows).toEqual([{ a: '\u0000big-integer:5', b: '\u0000big-integer:1e400' }]);
    expect(output.changes).toEqual([]);
    expect(result['outcome']).toBe('UNCHANGED');
  });

  it('a member named like an Object property (constructor, toString) is one column like any other', () => {
    const { output, text } = clean({ input: '[{"constructor":1},{"a":2}]' });
    expect(output.rows).toEqual<JsonObject[]>([{ constructor: 1 }, { a: 2 }]);
    expect(output.schema['items']).toMatchObject({ properties: { constructor: { type: 'integer' }, a: { type: 'integer' } }, required: [] });
    expect(text).not.toContain('undefined');
  });

  it('JSON that is not objects is NOT-TABULAR; the same input twice gives the same bytes', () => {
    expect(clean({ input: '[1, 2]', format: 'json' }).result['outcome']).toBe('NOT-TABULAR');
    const a = clean({ input: '{"a": 1}' });
    const b = clean({ input: '{"a": 1}' });
    expect(canonicalText(a.record)).toBe(canonicalText(b.record));
    expect(a.text).toBe(b.text);
  });
});
