/** The words of the clean-up's contract, apart from the engine so the catalogue entry names them without loading the JSON and CSV parsers. */
export const SCHEMA_CLEANUP_RULESET = { id: 'schema-cleanup', version: '1' } as const;
export const SCHEMA_CLEANUP_OUTCOMES = ['CLEANED', 'UNCHANGED', 'NOT-TABULAR', 'UNREPAIRABLE'] as const;
export const CLEANUP_FORMATS = ['json', 'csv', 'auto'] as const;
