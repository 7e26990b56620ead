import { describe, expect, it } from 'vitest';
import { ConfigError, loadSettings } from './config.ts';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadSettings(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('accepted');
};

describe('settings from the environment', () => {
  it('a variable set to the empty string is unset: its default applies (PORT= used to bind a random port)', () => {
    const settings = loadSettings({ PORT: '', OCR_QUEUE: '', SETTLEMENT: '', DATA_DIR: '', PAY_TO: '', LOG_LEVEL: '' });
    expect(settings).toMatchObject({ PORT: 4021, OCR_QUEUE: 4, SETTLEMENT: 'local', DATA_DIR: './data', LOG_LEVEL: 'info' });
    expect(settings.PAY_TO).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('numbers are whole numbers in decimal digits within their range, each problem on its own line', () => {
    expect(loadSettings({ PORT: '8080', OCR_QUEUE: '0', STATE_CACHE_MB: '256' })).toMatchObject({ PORT: 8080, OCR_QUEUE: 0, STATE_CACHE_MB: 256 });
    expect(loadSettings({}).STATE_CACHE_MB).toBe(24);
    const problems = problemsOf({ PORT: '0x10', REQUEST_TIMEOUT_MS: '1e3', OCR_WORKERS: '17', HEADERS_TIMEOUT_MS: ' 500' });
    expect(problems).toEqual([
      expect.stringMatching(/^PORT: must be a whole number in decimal digits/),
      expect.stringMatching(/^HEADERS_TIMEOUT_MS: must be a whole number/),
      expect.stringMatching(/^REQUEST_TIMEOUT_MS: must be a whole number/),
      expect.stringMatching(/^OCR_WORKERS: .*16/),
    ]);
  });

  it('names what a settlement mode needs', () => {
    expect(problemsOf({ SETTLEMENT: 'onchain', RPC_URL: '' })).toEqual([
      'RPC_URL: is required when SETTLEMENT=onchain',
      'RELAYER_PRIVATE_KEY: is required when SETTLEMENT=onchain',
    ]);
  });

  it('names every EventStoreDB scheme it takes', () => {
    expect(loadSettings({ EVENTSTORE_URL: 'kurrentdb://localhost:2113?tls=false' }).EVENTSTORE_URL).toBe('kurrentdb://localhost:2113?tls=false');
    const [problem] = problemsOf({ EVENTSTORE_URL: 'http://localhost:2113' });
    for (const scheme of ['esdb://', 'esdb+discover://', 'kurrentdb://', 'kurrentdb+discover://', 'kdb://', 'kdb+discover://']) expect(problem).toContain(scheme);
  });

  it('names what a settlement mode needs beside the other problems, not after they are fixed', () => {
    expect(problemsOf({ SETTLEMENT: 'facilitator', PORT: 'abc', NETWORK: 'eip155:1', LOG_LEVEL: 'loud' })).toEqual([
      expect.stringMatching(/^PORT: must be a whole number/),
      expect.stringMatching(/^NETWORK: /),
      expect.stringMatching(/^LOG_LEVEL: /),
      'FACILITATOR_URL: is required when SETTLEMENT=facilitator',
    ]);
    // A value that is there but malformed is reported as malformed, not as missing.
    expect(problemsOf({ SETTLEMENT: 'onchain', RPC_URL: 'not a url', RELAYER_PRIVATE_KEY: `0x${'1'.repeat(64)}` })).toEqual([expect.stringMatching(/^RPC_URL: /)]);
    expect(problemsOf({ SETTLEMENT: 'onchain', RPC_URL: 'not a url', RELAYER_PRIVATE_KEY: `0x${'1'.repeat(64)}` })[0]).not.toMatch(/required/);
  });
});
