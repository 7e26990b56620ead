import { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema, PingRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { HttpProblem } from '../http/problem.ts';
import { describeIssue, issuesOf, type Issue } from '../kernel/issues.ts';
import type { JsonObject } from '../signing/rfc8785.ts';

type JsonRpcId = string | number | null;

interface RequestSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };
}

/** The requests this server answers, each with the SDK's own schema of it. */
const ANSWERED: ReadonlyMap<string, RequestSchema> = new Map<string, RequestSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/**
 * A request whose params its method's schema refuses: JSON-RPC's invalid params (-32602), HTTP
 * 422 like every input the service refuses, each field named with its reason. The SDK would
 * answer -32603, an internal error, with the schema's issues dumped into the message: a client
 * could not tell its own mistake from the server's fault.
 */
export class InvalidParams extends HttpProblem {
  constructor(
    /** The request's id, echoed as JSON-RPC requires when it could be read; null for a batch. */
    readonly id: JsonRpcId,
    issues: Issue[],
    inBatch: boolean,
  ) {
    const first = issues[0]!;
    super(422, 'validation_error', `invalid params (${describeIssue(first)})${inBatch ? '; nothing in the batch was run' : ''}`, { outcome: 'INVALID-INPUT', issues });
  }

  override jsonRpcError(requestId: string): JsonObject {
    return Object.assign(super.jsonRpcError(requestId), { id: this.id });
  }
}

/**
 * Throws InvalidParams for the first request in `body` (one JSON-RPC message or a batch) whose
 * params do not fit its method; what this server does not answer is left to the SDK (method not
 * found), and so is anything that is not a request.
 */
export function checkRequestParams(body: unknown): void {
  const inBatch = Array.isArray(body);
  const messages: unknown[] = inBatch ? body : [body];
  messages.forEach((message, index) => {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return;
    const { id, method } = message as { id?: unknown; method?: unknown };
    const schema = typeof method === 'string' ? ANSWERED.get(method) : undefined;
    if (!schema || (typeof id !== 'string' && typeof id !== 'number')) return;
    const parsed = schema.safeParse(message);
    if (parsed.success) return;
    const issues = issuesOf(parsed.error).map((issue) => (inBatch ? Object.assign({}, issue, { path: `[${index}].${issue.path}` }) : issue));
    throw new InvalidParams(inBatch ? null : id, issues, inBatch);
  });
}
