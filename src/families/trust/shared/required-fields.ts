/**
 * Required caller fields that are absent, null or blank, in the order given. A blank string is
 * missing too: it is also the verify routes' default, so it could never be told from absence.
 */
export function missingRequiredFields(input: unknown, names: readonly string[]): string[] {
  const fields = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  return names.filter((name) => {
    const value = fields[name];
    return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
  });
}
