/**
 * `@modalcore/sdk/wagmi`: a wagmi 2 / 3 connector over the modal. `connect()` opens the modal and
 * resolves once the visitor has connected there (rejects with 4001 when they close it first);
 * requests go to the modal's EIP-1193 provider; accounts, chain and disconnect follow the
 * engine's host events (so they hold for every wallet kind: injected, WalletConnect, embedded).
 * Nothing runs at import or during server rendering: the modal is made on the first call wagmi
 * makes in the browser (getProvider, isAuthorized, connect).
 */
import { type Address, type Chain, SwitchChainError, UserRejectedRequestError, getAddress, numberToHex } from 'viem';
import { type Config, type CreateConnectorFn, type Transport, createConfig, http } from 'wagmi';
import type { HostProvider, Modal, Unsubscribe } from '../host';
import type { AccountState, NetworkState } from '../host-events';
import { viaEngine } from '../embedded-rpc';
import { type ModalOptions, type ModalSource, createModal, lazyModal, resolveModal } from './index';
import { untilConnectedOrClosed, untilReady } from './connect-outcome';

export type ModalcoreConnectorParameters = {
  /** The modal (or a getter, e.g. `lazyModal(options)` shared with `<ModalProvider modal>`)… */
  modal?: ModalSource;
  /** …or the options of a modal the connector makes on first use. */
  options?: ModalOptions;
  id?: string;
  name?: string;
  icon?: string;
  /** How long `isAuthorized()` waits for the engine's first state (default 10 s). */
  readyTimeoutMs?: number;
  /** How long `switchChain()` waits for the network to follow (default 60 s). */
  switchTimeoutMs?: number;
};

/** What wagmi's `createConfig({ connectors })` and `connect({ connector })` take: wagmi's own
 * `CreateConnectorFn` (the app's wagmi 2 or 3: both export it from 'wagmi'), whose provider is
 * the modal's EIP-1193 provider. */
export type ModalcoreConnectorFn = CreateConnectorFn<HostProvider, { watch(): void; unwatch(): void }>;

const rejected = (message: string) =>
  new UserRejectedRequestError(Object.assign(new Error(message), { code: 4001 }));

/** The next value of one host event that satisfies `test` (at once when the last one does). */
function next<T>(subscribe: (cb: (value: T) => void) => Unsubscribe, test: (value: T) => boolean,
  timeoutMs: number, onTimeout: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    let unsubscribe: Unsubscribe | null = null;
    let done = false;
    const timer = setTimeout(() => finish(() => reject(onTimeout())), timeoutMs);
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe?.();
      settle();
    };
    unsubscribe = subscribe((value) => {
      if (test(value)) finish(() => resolve(value));
    });
    if (done) unsubscribe();
  });
}

const evmChainId = (network: NetworkState | undefined): number | undefined =>
  network?.caipNetworkId.startsWith('eip155:') ? Number(network.chainId) : undefined;

export function modalcore(parameters: ModalcoreConnectorParameters): ModalcoreConnectorFn {
  const readyMs = parameters.readyTimeoutMs ?? 10_000;
  const switchMs = parameters.switchTimeoutMs ?? 60_000;
  let modal: Modal | null = null;
  const theModal = (): Modal => {
    if (modal) return modal;
    if (parameters.modal) return (modal = resolveModal(parameters.modal));
    if (!parameters.options) throw new Error('modalcore connector needs `modal` or `options`');
    return (modal = createModal(parameters.options));
  };
  let lastAccount: AccountState | undefined;
  let lastNetwork: NetworkState | undefined;
  let watching: Unsubscribe[] = [];

  const connector: ModalcoreConnectorFn = (config) => {
    const ready = (m: Modal) => untilReady(m, readyMs);
    // the account once settled: a resumed session reports 'reconnecting' until its wallet answers
    const account = (m: Modal) =>
      next<AccountState>((cb) => m.subscribeAccount(cb), (a) => a.status !== 'reconnecting' && a.status !== 'connecting',
        readyMs, () => new Error('modalcore: no account state'));
    const addresses = (a: AccountState | undefined): Address[] =>
      a?.isConnected && a.address.startsWith('0x') ? [getAddress(a.address)] : [];

    const self = {
      id: parameters.id ?? 'modalcore',
      name: parameters.name ?? 'modalcore',
      type: 'modalcore',
      icon: parameters.icon,

      async connect(options: { chainId?: number | undefined; isReconnecting?: boolean | undefined; withCapabilities?: boolean | undefined } = {}) {
        const m = theModal();
        await ready(m);
        let now = await account(m);
        if (!now.isConnected) {
          if (options.isReconnecting) throw rejected('Not connected');
          const connected = untilConnectedOrClosed(m);
          await m.open();
          const outcome = await connected;
          if (!outcome) throw rejected('The visitor closed the modal');
          now = outcome;
        }
        lastAccount = now;
        self.watch();
        let chainId = await self.getChainId();
        if (options.chainId && options.chainId !== chainId) chainId = (await self.switchChain({ chainId: options.chainId })).id;
        const accounts = addresses(now);
        return {
          // wagmi's type says which of the two shapes by the call's `withCapabilities`, as here
          accounts: (options.withCapabilities ? accounts.map((address) => ({ address, capabilities: {} })) : accounts) as never,
          chainId,
        };
      },

      async disconnect() {
        self.unwatch();
        await theModal().disconnect();
      },

      async getAccounts() {
        return addresses(lastAccount ?? (await account(theModal())));
      },

      async getChainId() {
        const m = theModal();
        const known = evmChainId(lastNetwork) ?? evmChainId(await next<NetworkState>((cb) => m.subscribeNetwork(cb),
          () => true, readyMs, () => new Error('modalcore: no network state')));
        if (known !== undefined) return known;
        return Number(await m.getProvider().request({ method: 'eth_chainId' }));
      },

      async getProvider() {
        return theModal().getProvider();
      },

      async isAuthorized() {
        try {
          const m = theModal();
          await ready(m);
          return (await account(m)).isConnected;
        } catch {
          return false;
        }
      },

      async switchChain({ chainId }: { chainId: number }) {
        const chain = config.chains.find((c) => c.id === chainId);
        const m = theModal();
        try {
          // a browser wallet switches itself (and its chainChanged moves the engine); the
          // engine's own wallets (embedded, WalletConnect) switch through the host API
          const engineWallet = viaEngine((lastAccount ?? (await account(m))).connector);
          if (engineWallet) await m.switchNetwork(`eip155:${chainId}`);
          else await m.getProvider().request({ method: 'wallet_switchEthereumChain', params: [{ chainId: numberToHex(chainId) }] });
          await next<NetworkState>((cb) => m.subscribeNetwork(cb), (n) => evmChainId(n) === chainId, switchMs,
            () => new Error(`the network did not become ${chainId}`));
        } catch (error) {
          if ((error as { code?: number }).code === 4001) throw new UserRejectedRequestError(error as Error);
          throw new SwitchChainError(error as Error);
        }
        return chain ?? { id: chainId, name: `Chain ${chainId}` };
      },

      /** wagmi calls this once per connector when its config is made. A connection the visitor
       * makes in the modal's own UI (its ConnectButton, `modal.open()`), not through wagmi's
       * `connect()`, is told to wagmi as this connector's `connect` event, as an injected
       * wallet's own connect event is; from then on `watch()` follows it. wagmi ignores the
       * event while its own connect or reconnect runs (that one ends connected anyway). */
      async setup() {
        if (typeof window === 'undefined') return; // server rendering: nothing runs
        const m = theModal();
        m.subscribeAccount((a) => {
          if (watching.length > 0 || !a.isConnected) return;
          const accounts = addresses(a);
          if (accounts.length === 0) return; // a Solana account: not wagmi's
          lastAccount = a;
          self.getChainId().then((chainId) => {
            if (watching.length > 0) return;
            self.watch();
            config.emitter.emit('connect', { accounts, chainId });
          }, () => undefined);
        });
      },

      onAccountsChanged(accounts: string[]) {
        if (accounts.length === 0) self.onDisconnect();
        else config.emitter.emit('change', { accounts: accounts.map((a) => getAddress(a)) });
      },

      onChainChanged(chain: string) {
        config.emitter.emit('change', { chainId: Number(chain) });
      },

      onDisconnect() {
        self.unwatch();
        config.emitter.emit('disconnect');
      },

      /** Follows the engine's account and network events while connected. */
      watch() {
        if (watching.length > 0) return;
        const m = theModal();
        let seenAccount = JSON.stringify(addresses(lastAccount));
        let seenChain = evmChainId(lastNetwork);
        watching = [
          m.subscribeAccount((a) => {
            if (a.status === 'connecting' || a.status === 'reconnecting') return; // re-synced after a reload
            lastAccount = a;
            const list = addresses(a);
            const key = JSON.stringify(list);
            if (key === seenAccount) return;
            seenAccount = key;
            if (list.length === 0) self.onDisconnect();
            else self.onAccountsChanged(list);
          }),
          m.subscribeNetwork((n) => {
            lastNetwork = n;
            const id = evmChainId(n);
            if (id === undefined || id === seenChain) return;
            seenChain = id;
            self.onChainChanged(String(id));
          }),
        ];
      },

      unwatch() {
        for (const off of watching) off();
        watching = [];
        lastAccount = undefined;
        lastNetwork = undefined;
      },
    };
    return self;
  };
  return connector;
}

export type DefaultConfigParameters = {
  /** The modal's project id and the engine's base URL (as `createModal`'s). */
  projectId: string;
  engineUrl: string;
  /** viem chains, as wagmi's `createConfig` takes them; the modal's networks are their eip155 ids. */
  chains: readonly [Chain, ...Chain[]];
  /** Default: `http()` for each chain. */
  transports?: Record<number, Transport>;
  appName?: string;
  appDescription?: string;
  appUrl?: string;
  appIcon?: string;
  ssr?: boolean;
  /** Any other modal option (features, siwx, theme, ...). */
  options?: Omit<ModalOptions, 'projectId' | 'engineUrl' | 'networks'>;
};

/** RainbowKit's `getDefaultConfig`, for the modal: one call gives the wagmi config (the modalcore
 * connector on the chains, each with an `http()` transport unless given) and the modal they share,
 * for `<WagmiProvider config>` and `<ModalProvider modal>`. */
export function getDefaultConfig(parameters: DefaultConfigParameters): { config: Config; modal: () => Modal } {
  const { projectId, engineUrl, chains, options } = parameters;
  const modal = lazyModal({
    ...options,
    projectId,
    engineUrl,
    networks: chains.map((c) => `eip155:${c.id}`),
    metadata: options?.metadata ?? {
      name: parameters.appName ?? '',
      description: parameters.appDescription ?? '',
      url: parameters.appUrl ?? (typeof location === 'undefined' ? '' : location.origin),
      icons: parameters.appIcon ? [parameters.appIcon] : [],
    },
  });
  const config = createConfig({
    chains,
    connectors: [modalcore({ modal }) as CreateConnectorFn],
    transports: parameters.transports ?? Object.fromEntries(chains.map((c) => [c.id, http()])),
    // the modal discovers the wallets (EIP-6963) itself; wagmi's own discovery would add each
    // one again as a connector of its own
    multiInjectedProviderDiscovery: false,
    ...(parameters.ssr ? { ssr: true } : {}),
  });
  return { config, modal };
}
