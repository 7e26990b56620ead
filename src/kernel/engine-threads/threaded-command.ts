import type { Command, CommandResult } from '../operation.ts';
import { runRecordOnEngineThread } from './pool.ts';

/**
 * The command of a stateless operation whose engine runs on an engine thread: `exportName` of
 * `module` (see worker-script.ts, moduleBeside), called with the input and the call's clock, answers the result.
 * The thread also makes the record's canonical form and its JSON text: the event loop only signs
 * the one (runOperation) and copies the other into the event log and the answer.
 */
export function fromThreadedEngine<I>(module: URL, exportName: string): Command<I> {
  return {
    async execute(input, ctx) {
      const { value, canonical, recordJson } = await runRecordOnEngineThread<CommandResult>(ctx.settings, module, exportName, [input, ctx.now]);
      return { ...value, canonical, recordJson };
    },
    runsOnEngineThread: true,
  };
}
