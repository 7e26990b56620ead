import { z } from 'zod';
import { compare, formatDecimal, parseDecimal, add, type Decimal } from '../../../kernel/exact-decimal.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';

/** The curated USDC table (data/usdc-deployments.json), as deployments.ts loads it. */
export interface UsdcDeployments {
  deployments: Array<{ network: string; chain: string; address: string; eip712_name: string; eip712_version: string; testnet: boolean }>;
  x402_v1_network_names: Record<string, string>;
}

export const PREFLIGHT_RULESET = { id: 'x402-payment-preflight', version: '1' } as const;
const MAX_UINT256 = 2n ** 256n - 1n;
const LONG_TIMEOUT_SECONDS = 600;
const MAX_TIMEOUT_SECONDS = 86_400;

export interface Policy {
  max_per_call_usd: string;
  daily_cap_usd?: string | undefined;
  allowed_networks?: string[] | undefined;
  allowed_assets?: string[] | undefined;
  allowed_payees?: string[] | undefined;
  denied_payees?: string[] | undefined;
}

export interface PreflightInput {
  quote: string | JsonObject;
  requested_url: string;
  policy: Policy;
  spent_today_usd?: string | undefined;
  governance_agent_id?: string | undefined;
}

type Verdict = 'PASS' | 'HOLD' | 'STOP' | 'BUDGET-EXCEEDED';
interface Check {
  check: string;
  verdict: Verdict;
  detail: string;
}

const entrySchema = z.looseObject({
  scheme: z.string().optional(),
  network: z.string().optional(),
  amount: z.string().optional(),
  maxAmountRequired: z.string().optional(),
  asset: z.string().optional(),
  payTo: z.string().optional(),
  resource: z.string().optional(),
  maxTimeoutSeconds: z.number().optional(),
  extra: z.looseObject({ name: z.string().optional(), version: z.string().optional() }).optional(),
});
const quoteSchema = z.looseObject({ x402Version: z.number().int(), accepts: z.array(entrySchema), resource: z.looseObject({ url: z.string().optional() }).optional() });

/** The PAYMENT-REQUIRED header (base64 JSON) or its decoded JSON, or why it cannot be read. */
export function decodeQuote(quote: string | JsonObject): { quote: z.infer<typeof quoteSchema> } | { unreadable: string } {
  let json: unknown = quote;
  if (typeof quote === 'string') {
    try {
      json = JSON.parse(Buffer.from(quote, 'base64').toString('utf8'));
    } catch {
      return { unreadable: 'the quote is neither base64 JSON (the PAYMENT-REQUIRED header) nor a JSON object' };
    }
  }
  const parsed = quoteSchema.safeParse(json);
  return parsed.success ? { quote: parsed.data } : { unreadable: `not an x402 payment-required object: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}` };
}

const usdOfAtomic = (atomic: bigint): string => formatDecimal({ units: atomic, scale: 6 });
const sameUrl = (a: string, b: string) => {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    return x.origin === y.origin && x.pathname.replace(/\/+$/, '') === y.pathname.replace(/\/+$/, '');
  } catch {
    return false;
  }
};
const lower = (xs: string[] | undefined) => xs?.map((x) => x.toLowerCase());

function checkEntry(entry: z.infer<typeof entrySchema>, quote: z.infer<typeof quoteSchema>, input: PreflightInput, table: UsdcDeployments): { checks: Check[]; amount_usd: string | null } {
  const checks: Check[] = [];
  const add1 = (check: string, verdict: Verdict, detail: string) => checks.push({ check, verdict, detail });
  const v1 = quote.x402Version === 1;
  add1('scheme', entry.scheme === 'exact' ? 'PASS' : 'HOLD', entry.scheme === 'exact' ? 'exact (EIP-3009 transferWithAuthorization)' : `scheme ${String(entry.scheme)} is not one this preflight knows`);
  const network = v1 && entry.network ? (table.x402_v1_network_names[entry.network] ?? entry.network) : entry.network;
  const deployment = table.deployments.find((d) => d.network === network);
  add1('network', deployment ? 'PASS' : 'HOLD', deployment ? `${network} (${deployment.chain}${deployment.testnet ? ', a testnet: no real value' : ''})` : `${String(entry.network)} is not in the USDC deployment table`);
  const allowedNetworks = input.policy.allowed_networks;
  if (allowedNetworks) add1('network allowed', network && allowedNetworks.includes(network) ? 'PASS' : 'STOP', `policy allows ${allowedNetworks.join(', ')}`);
  if (deployment) {
    const isUsdc = entry.asset?.toLowerCase() === deployment.address.toLowerCase();
    add1('asset', isUsdc ? 'PASS' : 'STOP', isUsdc ? `USDC ${deployment.address}` : `${String(entry.asset)} is not USDC on ${deployment.chain} (${deployment.address}): a look-alike token would be paid`);
    const [name, version] = [entry.extra?.name, entry.extra?.version];
    if (name === undefined || version === undefined) add1('eip712 domain', 'HOLD', 'extra.name or extra.version missing: the domain to sign cannot be checked');
    else add1('eip712 domain', name === deployment.eip712_name && version === deployment.eip712_version ? 'PASS' : 'STOP', `quote says ${name} v${version}; the token's domain is ${deployment.eip712_name} v${deployment.eip712_version}`);
  }
  const allowedAssets = lower(input.policy.allowed_assets);
  if (allowedAssets) add1('asset allowed', entry.asset && allowedAssets.includes(entry.asset.toLowerCase()) ? 'PASS' : 'STOP', 'against policy.allowed_assets');
  const payTo = entry.payTo?.toLowerCase();
  if (!payTo || !/^0x[0-9a-f]{40}$/.test(payTo)) add1('payee', 'STOP', `payTo ${String(entry.payTo)} is not an address`);
  else {
    if (lower(input.policy.denied_payees)?.includes(payTo)) add1('payee', 'STOP', `${payTo} is on the deny list`);
    else if (input.policy.allowed_payees && !lower(input.policy.allowed_payees)!.includes(payTo)) add1('payee', 'STOP', `${payTo} is not on the allow list`);
    else add1('payee', 'PASS', payTo);
  }
  const timeout = entry.maxTimeoutSeconds;
  if (timeout === undefined) add1('timeout', 'HOLD', 'maxTimeoutSeconds missing');
  else if (!Number.isInteger(timeout) || timeout <= 0 || timeout > MAX_TIMEOUT_SECONDS) add1('timeout', 'STOP', `maxTimeoutSeconds ${timeout} is outside 1..${MAX_TIMEOUT_SECONDS}`);
  else add1('timeout', timeout > LONG_TIMEOUT_SECONDS ? 'HOLD' : 'PASS', `${timeout} s${timeout > LONG_TIMEOUT_SECONDS ? `: a signed authorization valid that long can be held back and settled late` : ''}`);
  const resource = v1 ? entry.resource : quote.resource?.url;
  add1('resource', resource !== undefined && sameUrl(resource, input.requested_url) ? 'PASS' : 'STOP', `quote for ${String(resource)}; requested ${input.requested_url}`);
  const text = v1 ? entry.maxAmountRequired : entry.amount;
  if (text === undefined || !/^\d{1,78}$/.test(text) || BigInt(text) > MAX_UINT256) {
    add1('amount', 'STOP', `amount ${String(text)} is not a uint256 in atomic units`);
    return { checks, amount_usd: null };
  }
  const usd = usdOfAtomic(BigInt(text));
  add1('amount', 'PASS', `${text} atomic units = ${usd} USD (6 decimals), decoded exactly`);
  const amount = parseDecimal(usd);
  add1('per-call cap', compare(amount, parseDecimal(input.policy.max_per_call_usd)) <= 0 ? 'PASS' : 'BUDGET-EXCEEDED', `${usd} against max_per_call_usd ${input.policy.max_per_call_usd}`);
  if (input.policy.daily_cap_usd !== undefined) {
    if (input.spent_today_usd === undefined) add1('daily cap', 'HOLD', 'daily_cap_usd is set but spent_today_usd was not supplied');
    else {
      const after: Decimal = add(parseDecimal(input.spent_today_usd), amount);
      add1('daily cap', compare(after, parseDecimal(input.policy.daily_cap_usd)) <= 0 ? 'PASS' : 'BUDGET-EXCEEDED', `${input.spent_today_usd} spent + ${usd} = ${formatDecimal(after)} against daily_cap_usd ${input.policy.daily_cap_usd}`);
    }
  }
  return { checks, amount_usd: usd };
}

const RANK: Record<Verdict, number> = { PASS: 0, HOLD: 1, 'BUDGET-EXCEEDED': 2, STOP: 3 };
const DECISION: Record<Verdict, string> = { PASS: 'ALLOW', HOLD: 'HOLD', 'BUDGET-EXCEEDED': 'BUDGET-EXCEEDED', STOP: 'STOP' };

export function preflight(input: PreflightInput, table: UsdcDeployments, tableRef: JsonObject, now: number): JsonObject {
  const base = {
    kind: 'payment-preflight',
    ruleset: { ...PREFLIGHT_RULESET, data: [tableRef] },
    requested_url: input.requested_url,
    policy: input.policy as unknown as JsonValue,
    spent_today_usd: input.spent_today_usd ?? null,
    quote_sha256: canonicalSha256(input.quote as JsonValue),
    evidence_source: 'caller-supplied',
    not_performed: [
      ...(input.governance_agent_id ? [{ check: 'governance agent state', reason: 'not consulted by this version: pass the agent\'s caps and today\'s spend in policy and spent_today_usd' }] : []),
      { check: 'payee reputation and on-chain balances', reason: 'no network: only the quote and the policy are checked' },
    ],
  };
  const decoded = decodeQuote(input.quote);
  if ('unreadable' in decoded) return { ...base, outcome: 'STOP', x402_version: null, entries: [], recommended_entry: null, reason: decoded.unreadable, checkedAt: now };
  const { quote } = decoded;
  const entries = quote.accepts.map((entry, index) => {
    const { checks, amount_usd } = checkEntry(entry, quote, input, table);
    const worst = checks.reduce<Verdict>((w, c) => (RANK[c.verdict] > RANK[w] ? c.verdict : w), 'PASS');
    return { index, decision: DECISION[worst], amount_usd, network: entry.network ?? null, pay_to: entry.payTo ?? null, checks: checks as unknown as JsonValue, reasons: checks.filter((c) => c.verdict !== 'PASS').map((c) => `${c.check}: ${c.detail}`) };
  });
  const allowed = entries.filter((e) => e.decision === 'ALLOW').sort((a, b) => compare(parseDecimal(a.amount_usd!), parseDecimal(b.amount_usd!)) || a.index - b.index);
  const outcome = allowed.length > 0 ? 'ALLOW' : (['BUDGET-EXCEEDED', 'HOLD', 'STOP'].find((d) => entries.some((e) => e.decision === d)) ?? 'STOP');
  return { ...base, outcome, x402_version: quote.x402Version, entries, recommended_entry: allowed[0]?.index ?? null, checkedAt: now };
}
