import type { Command, CommandResult } from '../operation.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
import { runRecordOnEngineThread } from './pool.ts';

/**
 * The command of a stateless operation whose engine runs on an engine thread: `exportName` of
 * `module` (see worker-script.ts, moduleBeside), called with the input and the call's clock, answers the result.
 * The thread also makes the record's canonical form and its JSON text, and answers them instead
 * of the record: the event loop only signs the one (runOperation) and copies the other into the
 * event log and the answer.
 */
export function fromThreadedEngine<I>(module: URL, exportName: string): Command<I> {
  return {
    async execute(input, ctx) {
      const { value, canonical, recordText } = await runRecordOnEngineThread<CommandResult>(ctx.settings, module, exportName, [input, ctx.now]);
      let record: JsonObject | undefined;
      // The record is parsed from its text only when something reads it as an object (a store
      // that keeps objects, MCP's structured content): the file log and the HTTP answer copy the
      // text. The engine's value holds neither canonical nor recordText (the thread makes them);
      // they come first because members added after a leading spread take V8's slow path on
      // Node 20 (payments/saga/context.ts).
      return {
        canonical,
        recordText,
        ...value,
        get record(): JsonObject {
          return (record ??= JSON.parse(Buffer.from(recordText.json.buffer, recordText.json.byteOffset, recordText.json.byteLength).toString('utf8')) as JsonObject);
        },
      };
    },
    runsOnEngineThread: true,
  };
}
