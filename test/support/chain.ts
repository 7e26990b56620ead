import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  parseAbi,
  parseAbiItem,
  parseEther,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { base } from 'viem/chains';
import { z } from 'zod';
import { BASE_USDC } from '../../src/config.ts';
import { freeLoopbackPort } from './free-port.ts';

const CONTRACTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'contracts');
/** Contracts installed on the local chain, each where Base has the real one. */
const PREDEPLOYS = [
  { name: 'EIP3009Token', address: BASE_USDC },
  { name: 'Multicall3', address: '0xcA11bde05977b3631167028862bE2a173976CA11' },
] as const;
type PredeployName = (typeof PREDEPLOYS)[number]['name'];

/** The test token's surface used by helpers and assertions (the settlers carry their own ABI). */
export const testTokenAbi = parseAbi([
  'function mint(address to, uint256 value)',
  'function balanceOf(address owner) view returns (uint256)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface TestAccount {
  privateKey: Hex;
  address: Address;
}

export interface TokenTransfer {
  from: Address;
  to: Address;
  value: bigint;
  transactionHash: Hash;
}

export interface LocalChain {
  rpcUrl: string;
  chainId: 8453;
  /** The test token, at the real Base USDC address. */
  usdc: Address;
  publicClient: PublicClient;
  /** Submits transferWithAuthorization in onchain mode; holds ETH, never USDC. */
  relayer: TestAccount;
  /** Signs and pays gas for the local x402 facilitator; holds ETH, never USDC. */
  facilitator: TestAccount;
  /** Mints tokens and pays gas for test-only transactions. */
  faucet: TestAccount;
  /** A fresh account with ETH for gas (no USDC until minted). */
  newAccount(): Promise<TestAccount>;
  mintUsdc(to: Address, amount: bigint): Promise<void>;
  usdcBalance(owner: Address): Promise<bigint>;
  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean>;
  /** Every Transfer of the token so far, optionally only those from one address. */
  usdcTransfers(from?: Address): Promise<TokenTransfer[]>;
  stop(): Promise<void>;
}

const compiledArtifactSchema = z.object({
  solcVersion: z.string(),
  sourceHash: z.string(),
  deployedBytecode: z.record(z.string(), z.string().regex(/^0x[0-9a-f]+$/)),
});
type CompiledArtifact = z.infer<typeof compiledArtifactSchema>;

const solcOutputSchema = z.object({
  errors: z.array(z.object({ severity: z.string(), formattedMessage: z.string() })).optional(),
  contracts: z
    .record(z.string(), z.record(z.string(), z.object({ evm: z.object({ deployedBytecode: z.object({ object: z.string() }) }) })))
    .optional(),
});

const require = createRequire(import.meta.url);

/**
 * Runtime bytecode of the predeployed test contracts. Loading the solc WASM compiler costs
 * seconds, so the artifact is cached in the OS temp dir, keyed by source hash and compiler
 * version; the compiler is the one bundled in the installed `solc` package (never a download).
 */
export async function compileTestContracts(): Promise<Record<PredeployName, Hex>> {
  const sources = Object.fromEntries(
    PREDEPLOYS.map(({ name }) => [`${name}.sol`, { content: readFileSync(join(CONTRACTS_DIR, `${name}.sol`), 'utf8') }]),
  );
  const sourceHash = createHash('sha256').update(JSON.stringify(sources)).digest('hex');
  const solcPackage = z.object({ version: z.string() }).parse(require('solc/package.json'));
  const cacheDir = join(tmpdir(), 'attestation-service-solc-cache');
  const cachePath = join(cacheDir, `predeploys-${sourceHash.slice(0, 16)}-solc-${solcPackage.version}.json`);
  const pick = (artifact: CompiledArtifact) => {
    const bytecode = {} as Record<PredeployName, Hex>;
    for (const { name } of PREDEPLOYS) {
      const code = artifact.deployedBytecode[name];
      if (!code) throw new Error(`no bytecode for ${name}`);
      bytecode[name] = code as Hex;
    }
    return bytecode;
  };
  if (existsSync(cachePath)) {
    const cached = compiledArtifactSchema.safeParse(JSON.parse(readFileSync(cachePath, 'utf8')));
    if (cached.success && cached.data.sourceHash === sourceHash) return pick(cached.data);
  }

  const { default: solc } = await import('solc');
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } },
    },
  };
  const output = solcOutputSchema.parse(JSON.parse(solc.compile(JSON.stringify(input)) as string));
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const deployedBytecode: Record<string, string> = {};
  for (const { name } of PREDEPLOYS) {
    const object = output.contracts?.[`${name}.sol`]?.[name]?.evm.deployedBytecode.object;
    if (!object) throw new Error(`solc produced no bytecode for ${name}`);
    deployedBytecode[name] = `0x${object}`;
  }

  const artifact: CompiledArtifact = { solcVersion: String(solc.version()), sourceHash, deployedBytecode };
  mkdirSync(cacheDir, { recursive: true });
  // Write then rename: parallel test files may compile at the same time.
  const partial = `${cachePath}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(artifact));
  renameSync(partial, cachePath);
  return pick(artifact);
}

const ANVIL_PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': 'linux-amd64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-amd64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-amd64',
};

/** The anvil binary shipped inside the @foundry-rs/anvil platform package. */
export function anvilBinaryPath(): string {
  const target = ANVIL_PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!target) throw new Error(`@foundry-rs/anvil ships no binary for ${process.platform}-${process.arch}`);
  const packageJson = require.resolve(`@foundry-rs/anvil-${target}/package.json`);
  const binary = join(dirname(packageJson), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) throw new Error(`anvil binary missing at ${binary}`);
  return binary;
}

async function rpc(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = z
    .object({ result: z.unknown().optional(), error: z.object({ message: z.string() }).optional() })
    .parse(await response.json());
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function waitForRpc(rpcUrl: string, anvil: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (anvil.exitCode !== null) throw new Error(`anvil exited with code ${anvil.exitCode}`);
    try {
      await rpc(rpcUrl, 'eth_chainId', []);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`anvil did not answer at ${rpcUrl}`, { cause: error });
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function spawnAnvil(): Promise<{ anvil: ChildProcess; rpcUrl: string }> {
  const binary = anvilBinaryPath();
  // The port is free when chosen but could be taken before anvil binds it: try a few.
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    const anvil = spawn(binary, ['--chain-id', '8453', '--host', '127.0.0.1', '--port', String(port), '--silent'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    anvil.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const rpcUrl = `http://127.0.0.1:${port}`;
    // A test run that dies without afterAll must not leave anvil running.
    const killOnExit = () => anvil.kill('SIGKILL');
    process.once('exit', killOnExit);
    anvil.once('exit', () => process.removeListener('exit', killOnExit));
    try {
      await waitForRpc(rpcUrl, anvil, 15_000);
      return { anvil, rpcUrl };
    } catch (error) {
      anvil.kill('SIGKILL');
      if (attempt >= 3) throw new Error(`could not start anvil: ${stderr.trim()}`, { cause: error });
    }
  }
}

function newKey(): TestAccount {
  const privateKey = generatePrivateKey();
  return { privateKey, address: privateKeyToAccount(privateKey).address };
}

/**
 * A fresh Base-like chain (chain id 8453) on a loopback port, with the test EIP-3009 token
 * installed at the Base USDC address and Multicall3 at its usual address, and funded relayer, facilitator and faucet accounts.
 */
export async function startLocalChain(): Promise<LocalChain> {
  const [bytecode, { anvil, rpcUrl }] = await Promise.all([compileTestContracts(), spawnAnvil()]);
  const usdc = getAddress(BASE_USDC);
  const chain = { ...base, rpcUrls: { default: { http: [rpcUrl] } } };
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient;
  const relayer = newKey();
  const facilitator = newKey();
  const faucet = newKey();

  const fundWithEth = (address: Address) => rpc(rpcUrl, 'anvil_setBalance', [address, `0x${parseEther('100').toString(16)}`]);
  try {
    await Promise.all(PREDEPLOYS.map(({ name, address }) => rpc(rpcUrl, 'anvil_setCode', [getAddress(address), bytecode[name]])));
    await Promise.all([relayer, facilitator, faucet].map((a) => fundWithEth(a.address)));
  } catch (error) {
    anvil.kill('SIGKILL');
    throw error;
  }
  const faucetWallet = createWalletClient({ account: privateKeyToAccount(faucet.privateKey), chain, transport: http(rpcUrl) });
  // One faucet, many callers: serialise its transactions so their nonces never collide.
  let faucetQueue: Promise<unknown> = Promise.resolve();

  return {
    rpcUrl,
    chainId: 8453,
    usdc,
    publicClient,
    relayer,
    facilitator,
    faucet,
    async newAccount() {
      const account = newKey();
      await fundWithEth(account.address);
      return account;
    },
    async mintUsdc(to, amount) {
      const minted = faucetQueue.then(async () => {
        const hash = await faucetWallet.writeContract({ address: usdc, abi: testTokenAbi, functionName: 'mint', args: [to, amount] });
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        if (receipt.status !== 'success') throw new Error(`mint reverted in ${hash}`);
      });
      faucetQueue = minted.catch(() => undefined);
      await minted;
    },
    usdcBalance: (owner) => publicClient.readContract({ address: usdc, abi: testTokenAbi, functionName: 'balanceOf', args: [owner] }),
    authorizationState: (authorizer, nonce) =>
      publicClient.readContract({ address: usdc, abi: testTokenAbi, functionName: 'authorizationState', args: [authorizer, nonce] }),
    async usdcTransfers(from) {
      const logs = await publicClient.getLogs({
        address: usdc,
        event: transferEvent,
        args: from ? { from } : {},
        fromBlock: 0n,
        toBlock: 'latest',
      });
      return logs.map((log) => ({
        from: log.args.from as Address,
        to: log.args.to as Address,
        value: log.args.value as bigint,
        transactionHash: log.transactionHash,
      }));
    },
    async stop() {
      if (anvil.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        anvil.once('exit', () => resolve());
        anvil.kill('SIGTERM');
      });
    },
  };
}
