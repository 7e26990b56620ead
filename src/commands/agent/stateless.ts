import type { Command } from '../../kernel/operation.ts';
import { analyseToolPermissions, type ToolPermissionInput } from '../../engines/agent/tool-permission.ts';
import { gradeResponsePair, type JudgeInput } from '../../engines/agent/judge.ts';
import { scoreUptimeProbe, type UptimeProbeInput } from '../../families/agent/uptime/engine.ts';

/**
 * The stateless agent operations: the engine's record is the whole result, and the signed
 * result in the payment stream is the whole history of the call, so a resumed call simply
 * recomputes the same record.
 */
export const uptimeProbe: Command<UptimeProbeInput> = {
  async execute(input, ctx) {
    return { record: scoreUptimeProbe(input, ctx.now) };
  },
};

export const judgeGrade: Command<JudgeInput> = {
  async execute(input, ctx) {
    return { record: gradeResponsePair(input, ctx.now) };
  },
};

export const toolPermissionThreatModel: Command<ToolPermissionInput> = {
  async execute(input, ctx) {
    return { record: analyseToolPermissions(input, ctx.now) };
  },
};
