import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TurnWrites } from '../../src/events/file-log/lmdb-turn.ts';

/** What lmdb-js rejects a failed commit's writes with: the cause in a promise of its own. */
function commitFailure(cause: Error): Error {
  const commitError = Promise.reject(cause);
  commitError.catch(() => {});
  return Object.assign(new Error('Commit failed (see commitError for details)'), { commitError });
}

describe('the writes of one turn', () => {
  it('resolve once every distinct promise the puts returned is committed', async () => {
    const turn = new TurnWrites();
    let resolveSecond!: () => void;
    const second = new Promise<void>((resolve) => (resolveSecond = resolve));
    turn.add(Promise.resolve(true));
    turn.add(second);
    turn.add(second);
    let done = false;
    const committed = turn.committed().then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(done).toBe(false);
    resolveSecond();
    await committed;
    expect(done).toBe(true);
  });

  it('reject with the commit\'s cause when one fails, after all have settled', async () => {
    const turn = new TurnWrites();
    turn.add(Promise.reject(commitFailure(Object.assign(new Error('No space left on device'), { code: 28 }))));
    turn.add(Promise.resolve(true));
    await expect(turn.committed()).rejects.toThrow('LMDB commit failed: No space left on device');
  });
});

describe("lmdb-js's orphaned commit failures", () => {
  it('do not end the process; an unrelated unhandled rejection still does', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'orphaned-commit-failures.ts')], { encoding: 'utf8', timeout: 20_000 });
    expect(child.stdout).toBe('outlived the orphans\n');
    expect(child.stderr).toContain('an unrelated bug');
    expect(child.status).toBe(1);
  });
});
