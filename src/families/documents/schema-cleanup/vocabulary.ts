/** The words of the clean-up's contract, apart from the engine so the catalogue entry names them without loading the JSON and CSV parsers. */
export const SCHEMA_CLEANUP_RULESET = { id: 'schema-cleanup', version: '2' } as const;
export const SCHEMA_CLEANUP_OUTCOMES = ['CLEANED', 'UNCHANGED', 'NOT-TABULAR', 'UNREPAIRABLE'] as const;
export const CLEANUP_FORMATS = ['json', 'csv', 'auto'] as const;

/** The format a text is cleaned as: the one named, or for auto JSON when it starts with { or [ (after a byte-order mark and white space), CSV otherwise. */
export function formatOf(input: { input: string; format?: (typeof CLEANUP_FORMATS)[number] | undefined }): 'json' | 'csv' {
  if (input.format && input.format !== 'auto') return input.format;
  const trimmed = input.input.replace(/^\uFEFF/, '').trimStart();
  return trimmed.startsWith('{') || trimmed.startsWith('[') ? 'json' : 'csv';
}
