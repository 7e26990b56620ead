import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testCallContext } from '../../test/support/call-context.ts';
import { checkBeforeQuote, fromEngine, pricedOperation, type Command, type PrecheckAnswer } from './operation.ts';
import { runOperation } from './run-operation.ts';

const wordsInput = z.object({ text: z.string() }).strict();
type WordsInput = z.infer<typeof wordsInput>;

const entry = {
  method: 'POST',
  path: '/v1/test/words',
  family: 'documents',
  priceUsd: '0.01',
  summary: 'Counts words.',
  description: 'Counts words.',
  inputFrom: 'json',
  input: wordsInput,
  example: { text: 'one two' },
  output: z.unknown(),
  keyFamily: 'utils',
  signedMember: null,
} as const;

const splitWords = (text: string) => text.split(' ').filter((w) => w !== '');
const countOf = (words: string[]) => ({ kind: 'word-count', words: words.length });

/** An operation whose precheck splits the text to bound it and hands the words to its command. */
function wordsOperation() {
  const handedToCommand: Array<string[] | undefined> = [];
  const op = pricedOperation({
    ...entry,
    id: 'test.words',
    precheck(input): PrecheckAnswer<string[]> {
      const words = splitWords(input.text);
      if (words.length > 3) return { status: 422, error: 'too_many_words', message: `${words.length} words: at most 3` };
      return { handoff: words };
    },
    command: {
      async execute(input, _ctx, words) {
        handedToCommand.push(words);
        return { record: countOf(words ?? splitWords(input.text)) };
      },
    },
  });
  return { op, handedToCommand };
}

describe('a precheck hands what it computed to the command of the same request', () => {
  it('the command receives the value the precheck handed, and signs what it signs without it', async () => {
    const { op, handedToCommand } = wordsOperation();
    const ctx = testCallContext();
    const input = { text: 'one two three' };
    const checked = await checkBeforeQuote(op, input, ctx, ctx.now);
    expect(checked).toEqual({ handoff: ['one', 'two', 'three'] });

    const handed = await runOperation(op, input, ctx, checked.handoff);
    expect(handedToCommand[0]).toBe(checked.handoff);
    const alone = await runOperation(op, input, ctx);
    expect(handedToCommand[1]).toBeUndefined();
    expect(handed.record).toEqual({ kind: 'word-count', words: 3 });
    expect(alone.seal.sha256).toBe(handed.seal.sha256);
  });

  it('a refusal hands nothing', async () => {
    const { op } = wordsOperation();
    const ctx = testCallContext();
    expect(await checkBeforeQuote(op, { text: 'a b c d' }, ctx, ctx.now)).toEqual({ refusal: expect.objectContaining({ status: 422, error: 'too_many_words' }) });
  });

  it('precheckState may hand a value too; a value it hands replaces precheck\'s, and its refusal wins over precheck\'s value', async () => {
    const op = pricedOperation({
      ...entry,
      id: 'test.state-words',
      precheck: (): PrecheckAnswer<string> => ({ handoff: 'from precheck' }),
      async precheckState(input): Promise<PrecheckAnswer<string>> {
        if (input.text === 'refuse') return { status: 422, error: 'refused', message: 'refused by the state check' };
        return input.text === 'hand' ? { handoff: 'from precheckState' } : undefined;
      },
      command: { execute: async (_input, _ctx, handoff) => ({ record: { kind: 'handed', handoff: handoff ?? null } }) },
    });
    const ctx = testCallContext();
    expect(await checkBeforeQuote(op, { text: 'hand' }, ctx, ctx.now)).toEqual({ handoff: 'from precheckState' });
    expect(await checkBeforeQuote(op, { text: 'keep' }, ctx, ctx.now)).toEqual({ handoff: 'from precheck' });
    expect((await checkBeforeQuote(op, { text: 'refuse' }, ctx, ctx.now)).refusal).toMatchObject({ error: 'refused' });
  });

  it('an operation whose precheck hands nothing, or that has none, is quoted and run as before', async () => {
    const engine = (input: WordsInput) => countOf(splitWords(input.text));
    const withRefusingPrecheck = pricedOperation({ ...entry, id: 'test.plain', precheck: (input) => (input.text === '' ? { status: 422, error: 'empty', message: 'no text' } : undefined), command: fromEngine(engine) });
    const withoutPrecheck = pricedOperation({ ...entry, id: 'test.bare', command: fromEngine(engine) });
    const ctx = testCallContext();
    for (const op of [withRefusingPrecheck, withoutPrecheck]) {
      const checked = await checkBeforeQuote(op, { text: 'one two' }, ctx, ctx.now);
      expect(checked).toEqual({});
      expect((await runOperation(op, { text: 'one two' }, ctx, checked.handoff)).record).toEqual({ kind: 'word-count', words: 2 });
    }
    expect((await checkBeforeQuote(withRefusingPrecheck, { text: '' }, ctx, ctx.now)).refusal).toMatchObject({ error: 'empty' });
  });

  // Checked by the type check (tsc covers the tests): an @ts-expect-error without its error fails it.
  it('is typed: a command cannot take a value of another type than its precheck hands', () => {
    const wantsNumber: Command<WordsInput, number> = { execute: async (_input, _ctx, n) => ({ record: { n: n ?? 0 } }) };
    // @ts-expect-error the precheck hands words, the command wants a number
    pricedOperation({ ...entry, id: 'test.mistyped', precheck: (input): PrecheckAnswer<string[]> => ({ handoff: splitWords(input.text) }), command: wantsNumber });
    // @ts-expect-error an operation that declares no handoff cannot hand one
    pricedOperation<typeof wordsInput>({ ...entry, id: 'test.undeclared', precheck: () => ({ handoff: 1 }), command: fromEngine(() => ({})) });
  });
});
