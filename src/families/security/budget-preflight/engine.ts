import { formatAmount, parseAmount } from '../../../kernel/decimal-amount.ts';
import { canonicalSha256, sha256Hex } from '../../../signing/hash.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import type { UsdcTable } from './deployments.ts';
import type { BudgetPolicy, BudgetPreflightInput } from './input.ts';
import { decodeQuote, type QuoteEntry } from './quote.ts';

/**
 * Version 2 (2026-11-27): a header quote is read as I-JSON (RFC 7493); one that is not (a lone
 * surrogate, a duplicate member, an inexact number) is QUOTE-UNDECODABLE, where version 1 took
 * what JSON.parse made of it.
 */
export const BUDGET_PREFLIGHT_RULESET = { id: 'budget-preflight', version: '2' } as const;
export const ENTRY_VERDICTS = ['ALLOW', 'HOLD', 'STOP'] as const;
export const PREFLIGHT_OUTCOMES = ['ALLOW', 'HOLD', 'STOP', 'BUDGET-EXCEEDED'] as const;
export const CHECK_RESULTS = ['PASS', 'FAIL', 'UNCHECKED'] as const;
/** Longer than this, a signed authorization stays spendable for longer than a call needs: held for a person to confirm. */
export const MAX_SANE_TIMEOUT_SECONDS = 3600;

type CheckResult = (typeof CHECK_RESULTS)[number];
// A type, not an interface: it is JSON as it stands.
type Check = { check: string; result: CheckResult; detail: string };

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ATOMIC = /^(0|[1-9]\d{0,77})$/;
const CAP_CHECKS = new Set(['max_per_call_usd', 'daily_cap_usd']);

const pass = (check: string, detail: string): Check => ({ check, result: 'PASS', detail });
const fail = (check: string, detail: string): Check => ({ check, result: 'FAIL', detail });
const unchecked = (check: string, detail: string): Check => ({ check, result: 'UNCHECKED', detail });
const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const text = (value: JsonValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** Origin and path, as the URL standard normalises them (case of scheme and host, default port, dot segments). */
function resourceKey(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '') || '/'}`;
  } catch {
    return undefined;
  }
}

function resolveNetwork(entry: QuoteEntry, table: UsdcTable): { caip2?: string; check: Check } {
  const network = text(entry.network);
  if (network === undefined) return { check: fail('network', 'no network named') };
  const caip2 = table.byNetwork.has(network) ? network : table.v1Names.get(network);
  if (caip2 === undefined) return { check: unchecked('network', `${network} is not in the USDC deployments table: the asset cannot be confirmed as USDC`) };
  const deployment = table.byNetwork.get(caip2)!;
  const note = caip2 === network ? '' : ` (x402 v1 name of ${caip2})`;
  return { caip2, check: pass('network', `${deployment.chain}${note}${deployment.testnet ? ', a test network: its USDC has no value' : ''}`) };
}

interface EntryEvaluation {
  checks: Check[];
  amountAtomic: string | null;
  amountUsd: string | null;
}

function checkEntry(entry: QuoteEntry, input: BudgetPreflightInput, table: UsdcTable): EntryEvaluation {
  const { policy } = input;
  const checks: Check[] = [];
  const scheme = text(entry.scheme);
  checks.push(scheme === 'exact' ? pass('scheme', 'exact (EIP-3009 transferWithAuthorization)') : unchecked('scheme', `${scheme ?? 'no scheme'}: only the exact scheme is checked`));

  const { caip2, check: networkCheck } = resolveNetwork(entry, table);
  checks.push(networkCheck);
  const deployment = caip2 ? table.byNetwork.get(caip2) : undefined;
  if (policy.allowed_networks) {
    const network = caip2 ?? text(entry.network) ?? '';
    checks.push(policy.allowed_networks.includes(network) ? pass('allowed_networks', `${network} is allowed`) : fail('allowed_networks', `${network || 'no network'} is not in allowed_networks`));
  }

  const asset = text(entry.asset);
  if (asset === undefined || !EVM_ADDRESS.test(asset)) checks.push(fail('asset', 'the asset is not a 20-byte hex address'));
  else if (!deployment) checks.push(unchecked('asset', 'the network is not in the table: the asset cannot be confirmed as USDC'));
  else checks.push(sameAddress(asset, deployment.address) ? pass('asset', `USDC on ${deployment.chain}`) : fail('asset', `not USDC on ${deployment.chain} (USDC is ${deployment.address})`));
  if (policy.allowed_assets) checks.push(asset && policy.allowed_assets.some((a) => sameAddress(a, asset)) ? pass('allowed_assets', 'the asset is allowed') : fail('allowed_assets', 'the asset is not in allowed_assets'));

  // The EIP-712 domain the payer would sign against must be the token's own.
  const extra = typeof entry.extra === 'object' && entry.extra !== null && !Array.isArray(entry.extra) ? entry.extra : {};
  for (const [member, expected] of [['name', deployment?.eip712_name], ['version', deployment?.eip712_version]] as const) {
    const given = text(extra[member]);
    const check = `extra.${member}`;
    if (given === undefined) checks.push(unchecked(check, `extra.${member} NOT-PROVIDED: the EIP-712 domain the wallet would sign cannot be confirmed`));
    else if (expected === undefined) checks.push(unchecked(check, 'the network is not in the table'));
    else checks.push(given === expected ? pass(check, `"${given}" as the token's EIP-712 domain`) : fail(check, `"${given}" is not the token's EIP-712 ${member} "${expected}"`));
  }

  const payTo = text(entry.payTo);
  if (payTo === undefined || !EVM_ADDRESS.test(payTo)) checks.push(fail('payTo', 'payTo is not a 20-byte hex address'));
  else {
    checks.push(pass('payTo', 'a 20-byte hex address'));
    if (policy.denied_payees) checks.push(policy.denied_payees.some((a) => sameAddress(a, payTo)) ? fail('denied_payees', `${payTo} is a denied payee`) : pass('denied_payees', 'payTo is not denied'));
    if (policy.allowed_payees) checks.push(policy.allowed_payees.some((a) => sameAddress(a, payTo)) ? pass('allowed_payees', 'payTo is allowed') : fail('allowed_payees', `${payTo} is not in allowed_payees`));
  }

  const timeout = entry.maxTimeoutSeconds;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) checks.push(fail('maxTimeoutSeconds', 'not a positive whole number of seconds'));
  else checks.push(timeout <= MAX_SANE_TIMEOUT_SECONDS ? pass('maxTimeoutSeconds', `${timeout} s`) : unchecked('maxTimeoutSeconds', `${timeout} s is more than ${MAX_SANE_TIMEOUT_SECONDS} s: the signed authorization would stay spendable that long`));

  const resource = text(entry.resourceUrl);
  if (resource === undefined) checks.push(unchecked('resource', 'the quote names no resource URL'));
  else {
    const quoted = resourceKey(resource);
    const requested = resourceKey(input.requested_url);
    checks.push(quoted !== undefined && quoted === requested ? pass('resource', 'the quote is for the requested URL') : fail('resource', `the quote is for ${resource}, not ${input.requested_url}`));
  }

  const amount = text(entry.amount);
  let amountAtomic: string | null = null;
  let amountUsd: string | null = null;
  if (amount === undefined || !ATOMIC.test(amount)) checks.push(fail('amount', 'not a whole number of atomic units'));
  else {
    amountAtomic = amount;
    if (deployment) {
      // USDC has 6 decimals: one atomic unit is one micro-dollar, exactly.
      amountUsd = formatAmount(BigInt(amount));
      checks.push(pass('amount', `${amount} atomic units = ${amountUsd} USDC`));
      checks.push(...capChecks(BigInt(amount), policy, input.spent_today_usd));
    } else {
      checks.push(unchecked('amount', 'the token is not confirmed as USDC: its decimals, so the amount in USD, are unknown'));
    }
  }
  return { checks, amountAtomic, amountUsd };
}

function capChecks(micros: bigint, policy: BudgetPolicy, spentToday: string | undefined): Check[] {
  const checks: Check[] = [];
  const perCall = parseAmount(policy.max_per_call_usd)!;
  checks.push(micros <= perCall ? pass('max_per_call_usd', `${formatAmount(micros)} <= ${policy.max_per_call_usd}`) : fail('max_per_call_usd', `BUDGET-EXCEEDED: ${formatAmount(micros)} > ${policy.max_per_call_usd}`));
  if (policy.daily_cap_usd !== undefined) {
    if (spentToday === undefined) checks.push(unchecked('daily_cap_usd', 'spent_today_usd NOT-PROVIDED: the daily cap cannot be checked'));
    else {
      const after = parseAmount(spentToday)! + micros;
      const cap = parseAmount(policy.daily_cap_usd)!;
      checks.push(after <= cap ? pass('daily_cap_usd', `${formatAmount(after)} <= ${policy.daily_cap_usd} after this payment`) : fail('daily_cap_usd', `BUDGET-EXCEEDED: ${formatAmount(after)} > ${policy.daily_cap_usd} after this payment`));
    }
  }
  return checks;
}

function verdictOf(checks: Check[]): (typeof ENTRY_VERDICTS)[number] {
  if (checks.some((c) => c.result === 'FAIL')) return 'STOP';
  if (checks.some((c) => c.result === 'UNCHECKED')) return 'HOLD';
  return 'ALLOW';
}

/** Over budget and nothing else wrong: paying would be fine but for a cap. */
function onlyOverBudget(checks: Check[]): boolean {
  const failures = checks.filter((c) => c.result === 'FAIL');
  return failures.length > 0 && failures.every((c) => CAP_CHECKS.has(c.check)) && checks.every((c) => c.result !== 'UNCHECKED');
}

function notPerformed(input: BudgetPreflightInput): JsonObject[] {
  return [
    { check: 'on-chain state', reason: 'no network is contacted: the token contract, its domain separator and the payer\'s balance are not read; the table stands for them' },
    { check: 'the payee\'s identity', reason: 'payTo is checked against the caller\'s lists only' },
    ...(input.governance_agent_id
      ? [{ check: 'spend-governor state of governance_agent_id', reason: 'this operation does not read another family\'s stored state; the caps are those supplied in policy and spent_today_usd' }]
      : []),
  ];
}

export function preflightPayment(input: BudgetPreflightInput, now: number, table: UsdcTable): JsonObject {
  const decoded = decodeQuote(input.quote);
  const base = {
    kind: 'budget-preflight',
    ruleset: { ...BUDGET_PREFLIGHT_RULESET, data: [{ name: table.name, version: table.version, sha256: table.sha256, data_date: table.dataDate }] },
    quote_sha256: typeof input.quote === 'string' ? sha256Hex(input.quote.trim()) : canonicalSha256(input.quote),
    quote_encoding: decoded.encoding,
    requested_url: input.requested_url,
    policy: input.policy as JsonObject,
    spent_today_usd: input.spent_today_usd ?? 'NOT-PROVIDED',
    ...(input.governance_agent_id ? { governance_agent_id: input.governance_agent_id } : {}),
  };
  const tail = { evidence_source: 'caller-supplied', not_performed: notPerformed(input), checkedAt: now };
  if (!decoded.ok) return { ...base, x402_version: null, outcome: 'STOP', reasons: [`QUOTE-UNDECODABLE: ${decoded.problem}`], entries: [], recommended_entry: null, ...tail };

  const evaluated = decoded.entries.map((entry) => ({ entry, ...checkEntry(entry, input, table) }));
  const allowed = evaluated.find(({ checks }) => verdictOf(checks) === 'ALLOW');
  const outcome = allowed
    ? 'ALLOW'
    : evaluated.some(({ checks }) => onlyOverBudget(checks))
      ? 'BUDGET-EXCEEDED'
      : evaluated.some(({ checks }) => verdictOf(checks) === 'HOLD')
        ? 'HOLD'
        : 'STOP';
  const reasons = allowed ? [] : [...new Set(evaluated.flatMap(({ checks }) => checks.filter((c) => c.result !== 'PASS').map((c) => `${c.check}: ${c.detail}`)))];
  const entries = evaluated.map(({ entry, checks, amountAtomic, amountUsd }) => ({
    index: entry.index,
    scheme: text(entry.scheme) ?? null,
    network: text(entry.network) ?? null,
    asset: text(entry.asset) ?? null,
    pay_to: text(entry.payTo) ?? null,
    amount_atomic: amountAtomic,
    amount_usd: amountUsd,
    verdict: verdictOf(checks),
    budget_exceeded: checks.some((c) => CAP_CHECKS.has(c.check) && c.result === 'FAIL'),
    checks,
  }));
  return {
    ...base,
    x402_version: decoded.version,
    outcome,
    reasons,
    entries,
    // The first entry that passes every check: the one to pay with.
    recommended_entry: allowed ? allowed.entry.index : null,
    ...tail,
  };
}
