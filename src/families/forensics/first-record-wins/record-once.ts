import type { CallContext } from '../../../kernel/operation.ts';
import { parseForensicsEvent, type ForensicsEvent } from '../events.ts';
import { handleCommand } from '../../../kernel/decider.ts';
import { firstRecordWins } from './decider.ts';


export async function recordOnce<E extends ForensicsEvent>(ctx: CallContext, stream: string, event: E): Promise<E> {
  const handled = await handleCommand(ctx.store, stream, firstRecordWins, event, { origin: ctx.paymentId, parse: parseForensicsEvent });
  const stored = handled.state;
  if (!stored || stored.type !== event.type) throw new Error(`stream ${stream} holds no ${event.type} event`);
  return stored as E;
}
