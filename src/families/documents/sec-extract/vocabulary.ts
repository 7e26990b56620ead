/** The words of the filing extraction's contract, apart from the engine so the catalogue entry names them without loading the HTML parser. */
// 2 (2026-11-27): a scale beyond -30..30 is NOT-RESOLVED (scale 999 wrote out 1,000 digits a fact).
export const SEC_EXTRACT_RULESET = { id: 'sec-extract', version: '2' } as const;
export const SEC_EXTRACT_OUTCOMES = ['EXTRACTED', 'NO-ITEMS-FOUND', 'FORM-TYPE-UNKNOWN'] as const;
