/**
 * The little of viem the wagmi entry names, for type-checking this repository
 * without installing them. The published declarations import the host app's real ones.
 */
declare module 'viem' {
  export type Address = `0x${string}`;
  export type Chain = { id: number; name: string };
  export function getAddress(address: string): Address;
  export function numberToHex(value: number): `0x${string}`;
  export class UserRejectedRequestError extends Error {
    constructor(cause: Error);
    code: number;
  }
  export class SwitchChainError extends Error {
    constructor(cause: Error);
    code: number;
  }
}

/**
 * The little of wagmi's own types (2 and 3 export the same names from 'wagmi') the connector and
 * `getDefaultConfig` name: as in @wagmi/core 3's connectors/createConnector.d.ts, narrowed to what
 * the connector uses. The published declarations import the host app's real ones, so an app
 * checks the connector against its own wagmi.
 */
declare module 'wagmi' {
  import type { Address, Chain } from 'viem';
  type Emitter = { emit(event: 'connect', data: { accounts: readonly Address[]; chainId: number }): void;
    emit(event: 'change', data: { accounts?: readonly Address[]; chainId?: number }): void;
    emit(event: 'disconnect'): void };
  export type CreateConnectorFn<provider = unknown, properties extends Record<string, unknown> = Record<string, unknown>> = (config: {
    chains: readonly [Chain, ...Chain[]];
    emitter: Emitter;
  }) => {
    readonly icon?: string | undefined;
    readonly id: string;
    readonly name: string;
    readonly type: string;
    setup?(): Promise<void>;
    connect<withCapabilities extends boolean = false>(parameters?: {
      chainId?: number | undefined;
      isReconnecting?: boolean | undefined;
      withCapabilities?: withCapabilities | boolean | undefined;
    } | undefined): Promise<{
      accounts: withCapabilities extends true ? readonly { address: Address; capabilities: Record<string, unknown> }[] : readonly Address[];
      chainId: number;
    }>;
    disconnect(): Promise<void>;
    getAccounts(): Promise<readonly Address[]>;
    getChainId(): Promise<number>;
    getProvider(parameters?: { chainId?: number | undefined } | undefined): Promise<provider>;
    isAuthorized(): Promise<boolean>;
    switchChain?(parameters: { chainId: number }): Promise<Chain>;
    onAccountsChanged(accounts: string[]): void;
    onChainChanged(chainId: string): void;
    onDisconnect(error?: Error | undefined): void;
  } & properties;
  export type Transport = (...args: never[]) => unknown;
  export type Config = { chains: readonly [Chain, ...Chain[]] };
  export function http(url?: string): Transport;
  export function createConfig(parameters: {
    chains: readonly [Chain, ...Chain[]];
    connectors?: CreateConnectorFn[];
    transports: Record<number, Transport>;
    multiInjectedProviderDiscovery?: boolean;
    ssr?: boolean;
  }): Config;
}
