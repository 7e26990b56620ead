import type { Command, CommandResult } from '../operation.ts';
import { runOnEngineThread } from './pool.ts';

/**
 * The command of a stateless operation whose engine runs on an engine thread: `exportName` of
 * `module` (see worker-script.ts, moduleBeside), called with the input and the call's clock, answers the result.
 */
export function fromThreadedEngine<I>(module: URL, exportName: string): Command<I> {
  return { execute: (input, ctx) => runOnEngineThread<CommandResult>(ctx.settings, module, exportName, [input, ctx.now]), runsOnEngineThread: true };
}
