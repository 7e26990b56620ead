import { z } from 'zod';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export const deploymentsFile = z.object({
  name: z.string(),
  version: z.string(),
  data_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  about: z.string(),
  decimals: z.literal(6),
  deployments: z.array(
    z
      .object({
        network: z.string().regex(/^eip155:\d+$/),
        chain: z.string(),
        testnet: z.boolean(),
        x402_v1_name: z.string().optional(),
        address: z.string().regex(EVM_ADDRESS),
        eip712_name: z.string(),
        eip712_version: z.string(),
      })
      .strict(),
  ),
});

export type UsdcDeployment = z.infer<typeof deploymentsFile>['deployments'][number];

/** The curated table as the engine uses it, with the facts of the data set it came from. */
export interface UsdcTable {
  name: string;
  version: string;
  dataDate: string;
  sha256: string;
  decimals: number;
  byNetwork: Map<string, UsdcDeployment>;
  /** x402 v1 network names ("base") to CAIP-2 ("eip155:8453"). */
  v1Names: Map<string, string>;
}

export function indexDeployments(text: string, sha256: string): UsdcTable {
  const file = deploymentsFile.parse(JSON.parse(text));
  return {
    name: file.name,
    version: file.version,
    dataDate: file.data_date,
    sha256,
    decimals: file.decimals,
    byNetwork: new Map(file.deployments.map((d) => [d.network, d])),
    v1Names: new Map(file.deployments.flatMap((d) => (d.x402_v1_name ? [[d.x402_v1_name, d.network] as const] : []))),
  };
}
