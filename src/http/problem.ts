import type { JsonObject } from '../signing/rfc8785.ts';
import { describeIssue, type Issue } from '../kernel/issues.ts';

/** The one error body of the service: {error, message, outcome?, issues?, requestId}. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly extra: { outcome?: string; issues?: Issue[]; operation?: string } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpProblem';
  }

  body(requestId: string): JsonObject {
    return {
      error: this.error,
      message: this.message,
      ...(this.extra.outcome ? { outcome: this.extra.outcome } : {}),
      ...(this.extra.operation ? { operation: this.extra.operation } : {}),
      ...(this.extra.issues ? { issues: this.extra.issues.map((i) => ({ path: i.path, message: i.message })) } : {}),
      requestId,
    };
  }

  /** A body that is not JSON at all, or not UTF-8. */
  get isUnparsableBody(): boolean {
    return this.status === 422 && this.extra.issues?.[0]?.path === '(body)';
  }

  /**
   * The same problem as a JSON-RPC 2.0 error (section 5.1), for the MCP endpoint, whose clients
   * read JSON-RPC: a body that is not JSON (or not UTF-8) is a parse error, JSON a signature
   * could not carry is invalid params, the service's own failure an internal error, and what it
   * will not read (too large, compressed) an invalid request. The problem body rides in `data`.
   */
  jsonRpcError(requestId: string): JsonObject {
    const code = this.isUnparsableBody ? -32700 : this.status === 422 ? -32602 : this.status >= 500 ? -32603 : -32600;
    return { jsonrpc: '2.0', error: { code, message: this.message, data: this.body(requestId) }, id: null };
  }
}

export function validationProblem(issues: Issue[], outcome = 'INVALID-INPUT'): HttpProblem {
  const first = issues[0];
  const summary = first ? describeIssue(first) : 'invalid input';
  return new HttpProblem(422, 'validation_error', `request failed validation (${summary})`, { outcome, issues });
}
