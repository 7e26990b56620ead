import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, http, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { base } from 'viem/chains';
import { z } from 'zod';
import { startLocalChain, type LocalChain, type TestAccount } from './chain.ts';

export interface LocalFacilitator {
  url: string;
  /** How many /verify and /settle requests it answered: lets tests see the service used it. */
  calls: { verify: number; settle: number };
  stop(): Promise<void>;
}

const facilitatorRequestSchema = z.object({
  x402Version: z.number().int(),
  paymentPayload: z.record(z.string(), z.unknown()),
  paymentRequirements: z.record(z.string(), z.unknown()),
});

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  response.writeHead(status, { 'content-type': 'application/json' }).end(json);
}

/**
 * A real x402 facilitator (x402Facilitator + @x402/evm's exact scheme for eip155:8453) on an
 * ephemeral loopback port, settling on the given chain with the given key as its gas payer.
 */
export async function startLocalFacilitator(rpcUrl: string, privateKey: Hex): Promise<LocalFacilitator> {
  const account = privateKeyToAccount(privateKey);
  const client = createWalletClient({ account, chain: { ...base, rpcUrls: { default: { http: [rpcUrl] } } }, transport: http(rpcUrl) }).extend(
    publicActions,
  );
  // The library's signer takes loosely typed arguments; viem's methods are typed per ABI, so
  // each is adapted here rather than cast wholesale.
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) => client.readContract({ ...args, abi: args.abi as Abi, args: args.args ?? [] }),
      verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
      writeContract: (args) =>
        client.writeContract({ ...args, abi: args.abi as Abi, args: [...args.args], account, chain: client.chain } as Parameters<
          typeof client.writeContract
        >[0]),
      sendTransaction: (args) => client.sendTransaction({ ...args, account, chain: client.chain }),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
      getCode: (args) => client.getCode(args),
    },
    { confirmationTimeoutMs: 30_000 },
  );
  const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: 'eip155:8453' });
  const calls = { verify: 0, settle: 0 };

  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      if (request.method === 'GET' && path === '/supported') return send(response, 200, facilitator.getSupported());
      if (request.method !== 'POST' || (path !== '/verify' && path !== '/settle')) return send(response, 404, { error: 'not found' });
      const parsed = facilitatorRequestSchema.safeParse(await readJson(request).catch(() => undefined));
      if (!parsed.success) return send(response, 400, { error: 'expected {x402Version, paymentPayload, paymentRequirements}' });
      const payload = parsed.data.paymentPayload as unknown as PaymentPayload;
      const requirements = parsed.data.paymentRequirements as unknown as PaymentRequirements;
      if (path === '/verify') {
        calls.verify += 1;
        return send(response, 200, await facilitator.verify(payload, requirements));
      }
      calls.settle += 1;
      return send(response, 200, await facilitator.settle(payload, requirements));
    })().catch((error: unknown) => send(response, 500, { error: error instanceof Error ? error.message : String(error) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

export interface FacilitatorChain {
  chain: LocalChain;
  facilitator: LocalFacilitator;
  /** Funded with `payerFunds` of the test USDC. */
  payer: TestAccount;
  payTo: TestAccount;
  stop(): Promise<void>;
}

/** A local chain with a facilitator on it, a funded payer and a payee: the facilitator suites' world. */
export async function startFacilitatorChain(payerFunds: bigint): Promise<FacilitatorChain> {
  const chain = await startLocalChain();
  const [facilitator, payer, payTo] = await Promise.all([
    startLocalFacilitator(chain.rpcUrl, chain.facilitator.privateKey),
    chain.newAccount(),
    chain.newAccount(),
  ]);
  await chain.mintUsdc(payer.address, payerFunds);
  return {
    chain,
    facilitator,
    payer,
    payTo,
    async stop() {
      await facilitator.stop();
      await chain.stop();
    },
  };
}
