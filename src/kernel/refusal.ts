/** An answer given instead of running, free of charge (nothing settled). */
export interface Refusal {
  /** 413: the input is too large to process; 503: the service is too busy now (with retryAfterSeconds). */
  status: 403 | 409 | 413 | 422 | 503;
  error: string;
  message: string;
  /** An outcome label of spec section 2 when one applies (INVALID-INPUT, BUDGET-EXCEEDED). */
  outcome?: string;
  issues?: Array<{ path: string; message: string }>;
  /** For a 503: when to try again (the Retry-After header). */
  retryAfterSeconds?: number;
}

/** A free 422 INVALID-INPUT naming one field: `message` is `<where>: <reason>` (where: the field, or the member it belongs to). */
export function invalidInputRefusal(error: string, path: string, reason: string, where = path): Refusal {
  return { status: 422, error, message: `${where}: ${reason}`, outcome: 'INVALID-INPUT', issues: [{ path, message: reason }] };
}
