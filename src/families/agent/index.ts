import { defineFamily } from '../../kernel/operation.ts';
import { judge } from './judge/operation.ts';
import { memoryChainRule } from './memory/audit-rule.ts';
import { memory } from './memory/operation.ts';
import { toolPermission } from './tool-permission/operation.ts';
import { uptime } from './uptime/operation.ts';

/** Agent Infrastructure: one line per operation (docs/adding-an-operation.md). */
export const agentFamily = defineFamily('agent', [...judge, ...toolPermission, ...uptime, ...memory], [memoryChainRule]);
