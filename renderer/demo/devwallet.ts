/**
 * Dev Wallet — a TEST ASSET for the demo page and end-to-end tests, not a product wallet.
 *
 * A real EIP-1193 provider, announced through EIP-6963 (rdns `dev.modalcore.devwallet`),
 * backed by the local Hardhat nodes' unlocked dev accounts: every signature and transaction is
 * produced by the node over JSON-RPC (fetch). Prompts are approved at once unless a test says
 * otherwise through `window.devWallet` (reject the next prompt, pick another account, change the
 * network from the wallet side, ...). Hardhat nodes answer CORS preflights
 * (`Access-Control-Allow-Origin: *`), so the page calls them directly; relative RPC URLs
 * (e.g. an engine proxy path) work too.
 */

export interface DevWalletChain {
  chainId: number;
  rpcUrl: string;
  name: string;
}

export interface DevWalletOptions {
  /** Networks the wallet knows (default: 31337 → :8545 and 31338 → :8546 on 127.0.0.1). */
  chains?: DevWalletChain[];
  /** Also set `window.ethereum` when it is free (legacy injection). Default false. */
  legacyInjection?: boolean;
  /** localStorage key of the remembered state (connected, account, network, added chains). */
  storageKey?: string;
}

export interface DevWalletInfo {
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
}

export interface DevWalletState {
  connected: boolean;
  chainId: number;
  accountIndex: number;
  address: string | null;
  chains: DevWalletChain[];
  rejectNext: boolean;
}

export interface DevWalletRequestLog {
  method: string;
  params: unknown;
  ok: boolean;
  error?: { code: number; message: string };
}

/** What tests (Playwright `page.evaluate`) drive through `window.devWallet`. */
export interface DevWalletControl {
  readonly label: string;
  readonly info: DevWalletInfo;
  readonly provider: DevWalletProvider;
  /** The next prompt (connect, sign, send, switch/add chain) fails with 4001. */
  setRejectNext(reject?: boolean): void;
  /** Select dev account `index` (emits accountsChanged while connected); resolves to its address. */
  setAccountIndex(index: number): Promise<string>;
  /** Change network from the wallet side, to any chain id, known or not (emits chainChanged). */
  setChain(chainId: number): void;
  /** Same as setChain, with a hex chain id. */
  emitChainChanged(chainIdHex: string): void;
  /** The user disconnects the site in the wallet (emits accountsChanged with []). */
  disconnect(): void;
  /** The provider loses its connection (emits disconnect with error 4900). */
  emitDisconnect(): void;
  /** Delay before each prompt is answered, in ms (to see pending states). */
  setPromptDelay(ms: number): void;
  /** Announce again through EIP-6963. */
  announce(): void;
  getState(): DevWalletState;
  /** Requests seen by the provider, oldest first (at most 200). */
  readonly requests: DevWalletRequestLog[];
  /** Forget the remembered state and start over (not connected, account 0, first chain). */
  reset(): void;
}

export const DEV_WALLET_NAME = 'Dev Wallet';
export const DEV_WALLET_RDNS = 'dev.modalcore.devwallet';
export const DEV_WALLET_LABEL = 'Dev Wallet — test asset';

export const DEFAULT_DEV_CHAINS: readonly DevWalletChain[] = [
  { chainId: 31337, rpcUrl: 'http://127.0.0.1:8545', name: 'Dev Chain 31337' },
  { chainId: 31338, rpcUrl: 'http://127.0.0.1:8546', name: 'Dev Chain 31338' },
];

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96">' +
  '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">' +
  '<stop offset="0" stop-color="#f59e0b"/><stop offset="1" stop-color="#db2777"/></linearGradient></defs>' +
  '<rect width="96" height="96" rx="22" fill="url(#g)"/>' +
  '<rect x="18" y="30" width="60" height="40" rx="8" fill="#fff" opacity=".95"/>' +
  '<rect x="54" y="42" width="24" height="16" rx="5" fill="#db2777"/>' +
  '<circle cx="62" cy="50" r="3.5" fill="#fff"/>' +
  '<path d="M24 24h40" stroke="#fff" stroke-width="6" stroke-linecap="round" opacity=".7"/></svg>';
const ICON = `data:image/svg+xml;base64,${btoa(ICON_SVG)}`;

const PROMPT_METHODS = new Set([
  'eth_requestAccounts',
  'wallet_requestPermissions',
  'personal_sign',
  'eth_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'wallet_switchEthereumChain',
  'wallet_addEthereumChain',
  'wallet_watchAsset',
]);
const NEEDS_ACCOUNT = new Set(['personal_sign', 'eth_sign', 'eth_signTypedData_v4', 'eth_sendTransaction']);

/** An EIP-1193 error: `code` is one of 4001, 4100, 4200, 4900, 4901, 4902 or a JSON-RPC code. */
export class ProviderRpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'ProviderRpcError';
    this.code = code;
    this.data = data;
  }
}

const rejected = (): ProviderRpcError => new ProviderRpcError(4001, 'User rejected the request.');
const unauthorized = (): ProviderRpcError =>
  new ProviderRpcError(4100, 'The requested account and/or method has not been authorized by the user.');
const invalidParams = (message: string): ProviderRpcError => new ProviderRpcError(-32602, message);

type Listener = (...args: unknown[]) => void;

interface Remembered {
  connected: boolean;
  chainId: number;
  accountIndex: number;
  added: DevWalletChain[];
}

function randomUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const toHex = (n: number): string => `0x${n.toString(16)}`;
const isAddress = (v: unknown): v is string => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function parseChainId(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{1,15}$/.test(value)) {
    const n = Number.parseInt(value, 16);
    if (n > 0) return n;
  }
  throw invalidParams(`Invalid chainId: ${String(value)}`);
}

function utf8ToHex(text: string): string {
  return `0x${[...new TextEncoder().encode(text)].map((x) => x.toString(16).padStart(2, '0')).join('')}`;
}

function asList(params: unknown): unknown[] {
  if (params === undefined || params === null) return [];
  return Array.isArray(params) ? params : [params];
}

function isChain(value: unknown): value is DevWalletChain {
  const c = value as Partial<DevWalletChain> | null;
  return (
    typeof c === 'object' && c !== null && typeof c.chainId === 'number' && typeof c.rpcUrl === 'string' && typeof c.name === 'string'
  );
}

/** The EIP-1193 provider. */
export class DevWalletProvider {
  readonly isDevWallet = true;
  readonly isMetaMask = false;

  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly chains = new Map<number, DevWalletChain>();
  private readonly baseChains: DevWalletChain[];
  private state: Remembered;
  private accountsCache: string[] | null = null;
  private ids = 0;
  rejectNext = false;
  promptDelayMs = 0;
  readonly requests: DevWalletRequestLog[] = [];

  constructor(
    chains: readonly DevWalletChain[],
    private readonly storageKey: string,
  ) {
    this.baseChains = chains.map((c) => ({ ...c }));
    this.state = this.load();
    this.rebuildChains();
  }

  // -- EIP-1193 --------------------------------------------------------------------------

  async request(args: { readonly method: string; readonly params?: readonly unknown[] | object }): Promise<unknown> {
    if (typeof args !== 'object' || args === null || typeof args.method !== 'string' || !args.method) {
      throw invalidParams('Expected a request object with a method.');
    }
    const { method } = args;
    const params = asList(args.params);
    try {
      const result = await this.handle(method, params);
      this.log({ method, params, ok: true });
      return result;
    } catch (error) {
      const e = error instanceof ProviderRpcError ? error : new ProviderRpcError(-32603, String(error));
      this.log({ method, params, ok: false, error: { code: e.code, message: e.message } });
      throw e;
    }
  }

  on(event: string, listener: Listener): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return this;
  }

  once(event: string, listener: Listener): this {
    const wrapped: Listener = (...a) => {
      this.removeListener(event, wrapped);
      listener(...a);
    };
    return this.on(event, wrapped);
  }

  removeListener(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    return this.removeListener(event, listener);
  }

  removeAllListeners(event?: string): this {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
    return this;
  }

  emit(event: string, ...payload: unknown[]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(...payload);
      } catch (error) {
        console.error('Dev Wallet listener failed', error);
      }
    }
  }

  // -- wallet-side controls ----------------------------------------------------------------

  get connected(): boolean {
    return this.state.connected;
  }

  get chainId(): number {
    return this.state.chainId;
  }

  get accountIndex(): number {
    return this.state.accountIndex;
  }

  /** The wallet's state as tests see it (address is null until the accounts were fetched). */
  snapshot(): DevWalletState {
    return {
      connected: this.state.connected,
      chainId: this.state.chainId,
      accountIndex: this.state.accountIndex,
      address: this.accountsCache?.[this.state.accountIndex] ?? null,
      chains: this.knownChains(),
      rejectNext: this.rejectNext,
    };
  }

  knownChains(): DevWalletChain[] {
    return [...this.chains.values()].map((c) => ({ ...c }));
  }

  async accounts(): Promise<string[]> {
    if (this.accountsCache) return this.accountsCache;
    const current = this.chains.get(this.state.chainId);
    const order = [...(current ? [current] : []), ...this.chains.values()];
    let lastError: unknown = null;
    for (const chain of order) {
      try {
        const list = await this.rpc(chain, 'eth_accounts', []);
        if (Array.isArray(list) && list.every(isAddress) && list.length > 0) {
          this.accountsCache = list;
          return list;
        }
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError instanceof ProviderRpcError
      ? lastError
      : new ProviderRpcError(4900, 'Dev Wallet cannot reach any dev chain for its accounts.');
  }

  async selectedAddress(): Promise<string> {
    const list = await this.accounts();
    const address = list[this.state.accountIndex];
    if (!address) throw invalidParams(`Dev Wallet has no account #${this.state.accountIndex}`);
    return address;
  }

  async setAccountIndex(index: number): Promise<string> {
    const list = await this.accounts();
    if (!Number.isInteger(index) || index < 0 || index >= list.length) {
      throw invalidParams(`account index out of range 0..${list.length - 1}: ${index}`);
    }
    const changed = index !== this.state.accountIndex;
    this.state.accountIndex = index;
    this.save();
    const address = await this.selectedAddress();
    if (changed && this.state.connected) this.emit('accountsChanged', [address]);
    return address;
  }

  setChain(chainId: number): void {
    if (!Number.isSafeInteger(chainId) || chainId <= 0) throw invalidParams(`Invalid chainId: ${chainId}`);
    if (chainId === this.state.chainId) return;
    this.state.chainId = chainId;
    this.save();
    this.emit('chainChanged', toHex(chainId));
  }

  disconnect(): void {
    const was = this.state.connected;
    this.state.connected = false;
    this.save();
    if (was) this.emit('accountsChanged', []);
  }

  emitDisconnect(): void {
    this.emit('disconnect', new ProviderRpcError(4900, 'Dev Wallet disconnected.'));
  }

  reset(): void {
    this.state = { connected: false, chainId: this.baseChains[0]?.chainId ?? 31337, accountIndex: 0, added: [] };
    this.rejectNext = false;
    this.promptDelayMs = 0;
    this.accountsCache = null;
    this.requests.length = 0;
    this.rebuildChains();
    this.save();
  }

  // -- request handling ----------------------------------------------------------------------

  private async handle(method: string, params: unknown[]): Promise<unknown> {
    if (PROMPT_METHODS.has(method)) {
      if (NEEDS_ACCOUNT.has(method) && !this.state.connected) throw unauthorized();
      if (this.promptDelayMs > 0) await sleep(this.promptDelayMs);
      if (this.rejectNext) {
        this.rejectNext = false;
        throw rejected();
      }
    }
    switch (method) {
      case 'eth_requestAccounts':
        return this.connect();
      case 'wallet_requestPermissions':
        await this.connect();
        return [{ parentCapability: 'eth_accounts', caveats: [] }];
      case 'wallet_getPermissions':
        return this.state.connected ? [{ parentCapability: 'eth_accounts', caveats: [] }] : [];
      case 'wallet_revokePermissions':
        this.disconnect();
        return null;
      case 'eth_accounts':
        return this.state.connected ? [await this.selectedAddress()] : [];
      case 'eth_coinbase':
        return this.state.connected ? await this.selectedAddress() : null;
      case 'eth_chainId':
        return toHex(this.state.chainId);
      case 'net_version':
        return String(this.state.chainId);
      case 'personal_sign':
        return this.personalSign(params);
      case 'eth_sign':
        return this.forward('eth_sign', [await this.checkAccount(params[0]), params[1]]);
      case 'eth_signTypedData_v4':
        return this.signTypedData(params);
      case 'eth_sendTransaction':
        return this.sendTransaction(params);
      case 'wallet_switchEthereumChain':
        return this.switchChain(params);
      case 'wallet_addEthereumChain':
        return this.addChain(params);
      case 'wallet_watchAsset':
        return true;
      case 'eth_signTransaction':
      case 'eth_signTypedData':
      case 'eth_signTypedData_v3':
        throw new ProviderRpcError(4200, `Dev Wallet does not support ${method}.`);
      default:
        return this.forward(method, params);
    }
  }

  private async connect(): Promise<string[]> {
    const address = await this.selectedAddress();
    const was = this.state.connected;
    this.state.connected = true;
    this.save();
    if (!was) this.emit('accountsChanged', [address]);
    return [address];
  }

  private async checkAccount(address: unknown): Promise<string> {
    const selected = await this.selectedAddress();
    if (!isAddress(address) || address.toLowerCase() !== selected.toLowerCase()) throw unauthorized();
    return selected;
  }

  private async personalSign(params: unknown[]): Promise<unknown> {
    let [data, address] = params;
    // Some dapps send [address, message]; accept it like common wallets do.
    if (isAddress(data) && !isAddress(address)) [data, address] = [address, data];
    if (typeof data !== 'string') throw invalidParams('personal_sign expects [data, address].');
    const hex = /^0x([0-9a-fA-F]{2})*$/.test(data) ? data : utf8ToHex(data);
    return this.forward('personal_sign', [hex, await this.checkAccount(address)]);
  }

  private async signTypedData(params: unknown[]): Promise<unknown> {
    const [address, typed] = params;
    if (typed === undefined || typed === null) throw invalidParams('eth_signTypedData_v4 expects [address, typedData].');
    const json = typeof typed === 'string' ? typed : JSON.stringify(typed);
    const parsed = JSON.parse(json) as { domain?: { chainId?: unknown } };
    const domainChain = parsed.domain?.chainId;
    if (domainChain !== undefined && domainChain !== null) {
      const asNumber = typeof domainChain === 'string' && !domainChain.startsWith('0x') ? Number(domainChain) : domainChain;
      if (parseChainId(asNumber) !== this.state.chainId) {
        throw invalidParams(`Provided chainId "${String(domainChain)}" must match the active chainId "${this.state.chainId}"`);
      }
    }
    return this.forward('eth_signTypedData_v4', [await this.checkAccount(address), json]);
  }

  private async sendTransaction(params: unknown[]): Promise<unknown> {
    const tx = params[0];
    if (typeof tx !== 'object' || tx === null) throw invalidParams('eth_sendTransaction expects [transaction].');
    const { chainId, ...rest } = tx as Record<string, unknown>;
    if (chainId !== undefined && chainId !== null && parseChainId(chainId) !== this.state.chainId) {
      throw invalidParams(`Invalid chainId ${String(chainId)}: the wallet is on ${toHex(this.state.chainId)}.`);
    }
    const from = await this.checkAccount(rest.from ?? (await this.selectedAddress()));
    return this.forward('eth_sendTransaction', [{ ...rest, from }]);
  }

  private async switchChain(params: unknown[]): Promise<null> {
    const target = parseChainId((params[0] as { chainId?: unknown } | undefined)?.chainId);
    if (!this.chains.has(target)) {
      throw new ProviderRpcError(4902, `Unrecognized chain ID "${toHex(target)}". Try adding the chain using wallet_addEthereumChain first.`);
    }
    this.setChain(target);
    return null;
  }

  private async addChain(params: unknown[]): Promise<null> {
    const p = (params[0] ?? {}) as { chainId?: unknown; chainName?: unknown; rpcUrls?: unknown };
    const chainId = parseChainId(p.chainId);
    const rpcUrl = Array.isArray(p.rpcUrls) ? p.rpcUrls.find((u): u is string => typeof u === 'string' && u.length > 0) : undefined;
    if (!rpcUrl) throw invalidParams('wallet_addEthereumChain needs rpcUrls.');
    const name = typeof p.chainName === 'string' && p.chainName ? p.chainName : `Chain ${chainId}`;
    const chain: DevWalletChain = { chainId, rpcUrl, name };
    this.state.added = [...this.state.added.filter((c) => c.chainId !== chainId), chain];
    this.rebuildChains();
    this.save();
    this.setChain(chainId); // like common wallets: adding a chain also switches to it
    return null;
  }

  private async forward(method: string, params: unknown[]): Promise<unknown> {
    const chain = this.chains.get(this.state.chainId);
    if (!chain) {
      throw new ProviderRpcError(4901, `Dev Wallet has no RPC for chain ${toHex(this.state.chainId)}.`);
    }
    return this.rpc(chain, method, params);
  }

  private async rpc(chain: DevWalletChain, method: string, params: unknown[]): Promise<unknown> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.ids, method, params });
    let response: Response;
    try {
      response = await fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    } catch (error) {
      throw new ProviderRpcError(4901, `Dev Wallet cannot reach ${chain.name} at ${chain.rpcUrl}: ${String(error)}`);
    }
    let payload: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    try {
      payload = (await response.json()) as typeof payload;
    } catch {
      throw new ProviderRpcError(-32603, `${chain.name} answered HTTP ${response.status} without JSON.`);
    }
    if (payload.error) {
      const { code, message, data } = payload.error;
      throw new ProviderRpcError(typeof code === 'number' ? code : -32603, typeof message === 'string' ? message : 'RPC error', data);
    }
    return payload.result ?? null;
  }

  // -- remembered state ----------------------------------------------------------------------

  private rebuildChains(): void {
    this.chains.clear();
    for (const c of [...this.baseChains, ...this.state.added]) this.chains.set(c.chainId, { ...c });
  }

  private load(): Remembered {
    const fallback: Remembered = { connected: false, chainId: this.baseChains[0]?.chainId ?? 31337, accountIndex: 0, added: [] };
    try {
      const raw = window.localStorage.getItem(this.storageKey);
      if (!raw) return fallback;
      const v = JSON.parse(raw) as Partial<Remembered>;
      return {
        connected: v.connected === true,
        chainId: typeof v.chainId === 'number' && v.chainId > 0 ? v.chainId : fallback.chainId,
        accountIndex: typeof v.accountIndex === 'number' && v.accountIndex >= 0 ? v.accountIndex : 0,
        added: Array.isArray(v.added) ? v.added.filter(isChain) : [],
      };
    } catch {
      return fallback;
    }
  }

  private save(): void {
    try {
      window.localStorage.setItem(this.storageKey, JSON.stringify(this.state));
    } catch {
      /* storage unavailable (private mode, sandboxed frame): state lives for this page only */
    }
  }

  private log(entry: DevWalletRequestLog): void {
    this.requests.push(entry);
    if (this.requests.length > 200) this.requests.splice(0, this.requests.length - 200);
  }
}

/**
 * Install the Dev Wallet in this page: announce it through EIP-6963 (also on every
 * `eip6963:requestProvider`) and expose the test controls as `window.devWallet`.
 * Calling it again only announces again.
 */
export function installDevWallet(opts?: DevWalletOptions): void {
  const win = window as unknown as Record<string, unknown>;
  const existing = win.devWallet as DevWalletControl | undefined;
  if (existing) {
    existing.announce();
    return;
  }
  const chains = opts?.chains && opts.chains.length > 0 ? opts.chains : DEFAULT_DEV_CHAINS;
  const provider = new DevWalletProvider(chains, opts?.storageKey ?? 'modalcore.devwallet.v1');
  const info: DevWalletInfo = Object.freeze({ uuid: randomUuid(), name: DEV_WALLET_NAME, icon: ICON, rdns: DEV_WALLET_RDNS });

  const announce = (): void => {
    window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
  };
  window.addEventListener('eip6963:requestProvider', announce);

  const control: DevWalletControl = {
    label: DEV_WALLET_LABEL,
    info,
    provider,
    setRejectNext: (reject = true) => {
      provider.rejectNext = reject;
    },
    setAccountIndex: (index) => provider.setAccountIndex(index),
    setChain: (chainId) => provider.setChain(chainId),
    emitChainChanged: (hex) => provider.setChain(parseChainId(hex)),
    disconnect: () => provider.disconnect(),
    emitDisconnect: () => provider.emitDisconnect(),
    setPromptDelay: (ms) => {
      provider.promptDelayMs = Math.max(0, Number(ms) || 0);
    },
    announce,
    getState: () => provider.snapshot(),
    requests: provider.requests,
    reset: () => provider.reset(),
  };
  win.devWallet = control;
  if (opts?.legacyInjection && win.ethereum === undefined) win.ethereum = provider;
  announce();
}

/** The installed Dev Wallet's controls, if any (typed access to `window.devWallet`). */
export function getDevWallet(): DevWalletControl | undefined {
  return (window as unknown as Record<string, unknown>).devWallet as DevWalletControl | undefined;
}
