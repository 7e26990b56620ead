import { plannedOperation } from './planned.ts';
import type { Route } from './types.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from './verify-route.ts';

export const agentRoutes: Route[] = [
  plannedOperation({ id: 'mcp.eval.judge', method: 'POST', path: '/v1/mcp/eval/judge', family: 'agent', priceUsd: '0.15', summary: 'Grades one response pair against a rubric; deterministic; no external inference.', keyFamily: 'judge', signedMember: 'verdictCore', verifyPath: '/v1/mcp/eval/judge/verify' }),
  plannedOperation({ id: 'mcp.threatmodel.tool-permission', method: 'POST', path: '/v1/mcp/threatmodel/tool-permission', family: 'agent', priceUsd: '0.25', summary: 'Permission-sprawl risk of one MCP manifest, with an ownership proof recommended.', keyFamily: 'tool-permission', signedMember: 'evidenceCore', verifyPath: '/v1/mcp/threatmodel/tool-permission/recheck' }),
  plannedOperation({ id: 'mcp.verify.uptime', method: 'POST', path: '/v1/mcp/verify/uptime', family: 'agent', priceUsd: '0.25', summary: 'Scores one uptime probe from supplied checks plus a settlement anchor.', keyFamily: 'uptime', signedMember: 'evidenceCore', verifyPath: '/v1/mcp/verify/uptime/recheck' }),
  plannedOperation({ id: 'memory.get', method: 'POST', path: '/v1/memory/get', family: 'agent', priceUsd: '0.05', summary: "Latest signed state record for an agent's memory key.", keyFamily: 'memory', signedMember: 'sealed', verifyPath: '/v1/memory/verify' }),
  plannedOperation({ id: 'memory.put', method: 'POST', path: '/v1/memory/put', family: 'agent', priceUsd: '0.10', summary: "Appends one budget-capped state version to the agent's hash-chained store.", keyFamily: 'memory', signedMember: 'sealed', verifyPath: '/v1/memory/verify' }),

  verifyRoute({ id: 'memory.verify', method: 'GET', path: '/v1/memory/verify', family: 'agent', keyFamily: 'memory', summary: 'Re-checks a memory put or get result (body = the sealed record as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  verifyRoute({ id: 'mcp.eval.judge.verify', method: 'GET', path: '/v1/mcp/eval/judge/verify', family: 'agent', keyFamily: 'judge', summary: 'Re-checks a judge grade (body = the verdictCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  verifyRoute({ id: 'mcp.verify.uptime.recheck', method: 'POST', path: '/v1/mcp/verify/uptime/recheck', family: 'agent', keyFamily: 'uptime', summary: 'Re-checks an uptime probe result (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
  verifyRoute({ id: 'mcp.threatmodel.tool-permission.recheck', method: 'POST', path: '/v1/mcp/threatmodel/tool-permission/recheck', family: 'agent', keyFamily: 'tool-permission', summary: 'Re-checks a tool-permission threat model (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody }),
];
