import { randomBytes } from 'node:crypto';
import express from 'express';
import { x402Facilitator } from '@x402/core/facilitator';
import { x402ResourceServer } from '@x402/core/server';
import type { FacilitatorClient } from '@x402/core/server';
import { paymentMiddleware } from '@x402/express';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme as registerFacilitatorScheme } from '@x402/evm/exact/facilitator';
import { registerExactEvmScheme as registerServerScheme } from '@x402/evm/exact/server';
import { verifyTypedData, type Hex } from 'viem';
import { findOperation } from '../../src/catalog/index.ts';
import { loadSettings } from '../../src/config.ts';
import { paymentRequirements, resourceUrl } from '../../src/payments/x402/quote.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { seal } from '../../src/signing/seal.ts';

/**
 * The x402 reference stack, for the paid-call benchmark: Express with the official
 * `@x402/express` payment middleware, an `x402ResourceServer` with @x402/evm's exact scheme, and
 * an in-process `x402Facilitator` with @x402/evm's exact facilitator scheme. The facilitator's
 * signer verifies EIP-712 signatures for real (viem) and answers the chain reads the scheme makes
 * (code at the token, a passing transfer simulation, balance, unused nonce) without a chain;
 * its settlement "transaction" is a random hash with a successful receipt. So the stack does all
 * of its own work per call and none of a chain's.
 *
 * It protects one route, POST /v1/veritrack/attest, with the very requirements the service quotes,
 * so the benchmark's pre-signed payments are valid for both; the handler seals the same record.
 * Prints `listening <url>` for spawnServer; exits on SIGTERM.
 */
const settings = loadSettings({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent', SETTLEMENT: 'local' });
const op = findOperation('veritrack.attest')!;
const requirements = paymentRequirements(op, settings);
const keyring = createKeyring(settings.ATTESTATION_SECRET!);
const FACILITATOR_ADDRESS = '0x000000000000000000000000000000000000fac1' as Hex;

const signer = toFacilitatorEvmSigner({
  address: FACILITATOR_ADDRESS,
  readContract: async (args) => {
    if (args.functionName === 'balanceOf') return 10n ** 30n;
    if (args.functionName === 'authorizationState') return false;
    // transferWithAuthorization is simulated with eth_call: a call that does not revert returns nothing.
    return undefined;
  },
  verifyTypedData: (args) => verifyTypedData(args as Parameters<typeof verifyTypedData>[0]),
  writeContract: async () => `0x${randomBytes(32).toString('hex')}` as Hex,
  sendTransaction: async () => `0x${randomBytes(32).toString('hex')}` as Hex,
  waitForTransactionReceipt: async () => ({ status: 'success' }),
  // The token is a contract; the payer is an ordinary account, so its signature is checked as ECDSA.
  getCode: async ({ address }) => (address.toLowerCase() === requirements.asset.toLowerCase() ? '0x60806040' : '0x'),
});
const facilitator = registerFacilitatorScheme(new x402Facilitator(), { signer, networks: 'eip155:8453' });
const inProcessFacilitator: FacilitatorClient = {
  verify: (payload, reqs) => facilitator.verify(payload, reqs),
  settle: (payload, reqs) => facilitator.settle(payload, reqs),
  // The facilitator types a network as a plain string, the resource server as `ns:ref`: the same values.
  getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
};
const resourceServer = registerServerScheme(new x402ResourceServer(inProcessFacilitator), { networks: ['eip155:8453'] });

const PATH = '/v1/veritrack/attest';
const app = express();
app.use(express.json({ limit: '1mb' }));
app.use(
  paymentMiddleware(
    {
      [`POST ${PATH}`]: {
        accepts: {
          scheme: 'exact',
          network: requirements.network,
          payTo: requirements.payTo,
          price: { amount: requirements.amount, asset: requirements.asset, extra: requirements.extra },
          maxTimeoutSeconds: requirements.maxTimeoutSeconds,
        },
        description: op.summary,
        mimeType: 'application/json',
      },
    },
    resourceServer,
  ),
);
app.post(PATH, (req, res) => {
  const input = req.body as { kind: string; claim: Record<string, unknown> };
  const record = { kind: input.kind, attestedAt: Math.floor(Date.now() / 1000), claim: input.claim as never };
  res.json({ ...record, ...seal(keyring, 'veritrack', record), resource: resourceUrl(op, '') });
});

const server = app.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
