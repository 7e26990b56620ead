/** The words of the filing extraction's contract, apart from the engine so the catalogue entry names them without loading the HTML parser. */
export const SEC_EXTRACT_RULESET = { id: 'sec-extract', version: '1' } as const;
export const SEC_EXTRACT_OUTCOMES = ['EXTRACTED', 'NO-ITEMS-FOUND', 'FORM-TYPE-UNKNOWN'] as const;
