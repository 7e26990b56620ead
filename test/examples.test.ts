import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort } from './support/free-port.ts';
import { useTestService } from './support/service.ts';

/**
 * The runnable examples the README and docs/payments.md send a new user to, run as the user
 * runs them (`npx tsx examples/...` with BASE_URL), against the real service.
 */

const run = promisify(execFile);

async function runExample(file: string, baseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  // A throwaway key each run, as a new user's first run makes: no PRIVATE_KEY.
  const { PRIVATE_KEY: _ownKey, ...inherited } = process.env;
  const env = { ...inherited, BASE_URL: baseUrl };
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', file], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the examples', () => {
  const service = useTestService();

  // Each example starts its own Node with tsx and the x402 and MCP clients: seconds on a busy machine.
  const EXAMPLE_TIMEOUT = { timeout: 90_000 };

  it('pay-one-call.ts pays one call and checks the result offline', EXAMPLE_TIMEOUT, async () => {
    const { code, stdout } = await runExample('examples/pay-one-call.ts', service.url);
    expect(stdout).toContain('sha256 matches, keyId matches, Ed25519 signature valid');
    expect(code).toBe(0);
  });

  it('mcp-agent.ts pays one tool call and checks the result offline', EXAMPLE_TIMEOUT, async () => {
    const { code, stdout } = await runExample('examples/mcp-agent.ts', service.url);
    expect(stdout).toContain('sha256 matches: true');
    expect(stdout).toContain('signature valid: true');
    expect(code).toBe(0);
  });

  for (const file of ['examples/pay-one-call.ts', 'examples/mcp-agent.ts'])
    it(`${file} says to start the service when none answers, instead of a stack trace`, EXAMPLE_TIMEOUT, async () => {
      const baseUrl = `http://127.0.0.1:${await freeLoopbackPort()}`;
      const { code, stderr } = await runExample(file, baseUrl);
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(`no service answers at ${baseUrl}: start it with \`npm start\` in another terminal, wait for its "Listening on" line and run this again (or set BASE_URL)`);
    });
});
