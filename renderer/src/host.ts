/**
 * The host API: `createModal(options)`. Wires the transport, the wallet bridge and the store,
 * and mounts the React root in a shadow root. Every call is an intent on the virtual `host`
 * node; what the subscribers see comes from the engine's `host_event` frames.
 */
import { createElement, useMemo, useSyncExternalStore } from 'react';
import { type Root, createRoot } from 'react-dom/client';
import { MODAL_CSS, ModalRoot } from './components/index';
import { EngineBase } from './components/basic';
import { type Eip1193Provider, type WalletInfo, WalletBridge } from './bridge';
import { type Dict, ModalStore, type ThemeMode } from './store';
import { embeddedRequest, viaEngine } from './embedded-rpc';
import { Transport, randomId, type IntentStatus, type SocketLike, type StorageLike } from './transport';
import type { CompanionJoin } from './codec';
import { HOST_NODE, type RenderCtx } from './tree';
import type { AccountState, ConnectionState, ModalError, ModalState, NetworkState, SignInState } from './host-events';
import { Reachability } from './offline';
import { liveModals } from './live-modals';
import type { EngineOptions, HostView } from './options.gen';

export type { CustomWallet, EngineOptions, Features, HostView, Metadata, SiwxOptions } from './options.gen';

/** The modal's options: those the engine reads (generated from its pydantic models,
 * options.gen.ts: a misspelled option or a custom wallet without its `name` does not compile)
 * and those that stay on this page. */
export interface ModalOptions extends Omit<EngineOptions, 'networks'> {
  projectId: string;
  /** CAIP-2 network ids. */
  networks: readonly string[];
  /** Where the modal mounts when `embedded` or `disableAppend` is set. */
  container?: Element | null;
  /** The engine's base URL; default: the origin this script was loaded from. */
  engineUrl?: string;
  /** The linked phone's page (issue 44, PROTOCOL.md "Companion"): join that session as its
   * second screen, signed by the phone's key; no wallets announced, nothing stored. */
  companion?: CompanionJoin;
  /** The phone's page: a fresh signed companion join for each later socket (a nonce joins once). */
  renewCompanion?: () => Promise<CompanionJoin | null>;
  /** For tests: another socket or storage. */
  socket?: (url: string) => SocketLike;
  storage?: StorageLike | null;
}

export type Unsubscribe = () => void;
export type HostProvider = Eip1193Provider & {
  on(event: string, listener: (...args: unknown[]) => void): HostProvider;
  removeListener(event: string, listener: (...args: unknown[]) => void): HostProvider;
};

export interface Modal {
  /** Opens the modal (on `view` when the state can fill it, PROTOCOL.md `open`). */
  open(options?: { view?: HostView }): Promise<void>;
  close(): Promise<void>;
  /** The last known state (empty before the engine's first frame). */
  getState(): Partial<ModalState>;
  subscribeState(callback: (state: ModalState) => void): Unsubscribe;
  subscribeAccount(callback: (account: AccountState) => void): Unsubscribe;
  subscribeNetwork(callback: (network: NetworkState) => void): Unsubscribe;
  /** Sign-in state: `{enabled, signedIn, token}` (the token is for the host's backend). */
  subscribeSiwx(callback: (siwx: SignInState) => void): Unsubscribe;
  /** Whether the engine answers: `{status: 'connecting' | 'connected' | 'unreachable'}` (the
   * renderer's own event: no engine frame carries it). */
  subscribeConnection(callback: (connection: ConnectionState) => void): Unsubscribe;
  /** `{code: 'unreachable', message}` when the engine cannot be reached (renderer-side). */
  subscribeError(callback: (error: ModalError) => void): Unsubscribe;
  switchNetwork(caip2: string): Promise<void>;
  disconnect(): Promise<void>;
  /** Ends the sign-in session (with `siwx.required`, the connection too): PROTOCOL.md `sign_out`. */
  signOut(): Promise<void>;
  setThemeMode(mode: ThemeMode): Promise<void>;
  setThemeVariables(variables: Record<string, string | number>): Promise<void>;
  getProvider(): HostProvider;
  destroy(): void;
  /** The element holding the modal's shadow root. */
  readonly element: HTMLElement;
}

export { liveModals };

const SCRIPT_SRC = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;
const LOCAL_OPTIONS = new Set(['projectId', 'container', 'engineUrl', 'socket', 'storage', 'companion',
  'renewCompanion']);

/** The engine's websocket URL for a project. */
export function socketUrl(engineUrl: string | undefined, projectId: string, path = 'ws'): string {
  const base = new URL(engineUrl ?? (SCRIPT_SRC ? new URL(SCRIPT_SRC).origin : location.origin), location.href);
  base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  base.pathname = `${base.pathname.replace(/\/$/, '')}/${path}`;
  base.search = '';
  base.searchParams.set('project', projectId);
  return base.toString();
}

/** What a developer reads in the console when the engine refused the socket for good (issue 40
 * item 3: a refused origin was silent, and wagmi's connect() failed 10 s later with "the engine
 * did not answer"). Always printed, debug or not: nothing else will ever connect. */
export function refusalAdvice(code: string, message: string, projectId: string, engineUrl: string | undefined): string {
  const inBrowser = typeof location !== 'undefined';
  const engine = inBrowser ? engineBase(engineUrl) : engineUrl ?? '(the engine)';
  const page = inBrowser ? location.origin : '(this page)';
  if (code === 'bad_origin') {
    return `[modalcore] the engine at ${engine} refused this page's origin ${page} for project ` +
      `'${projectId}'. Add ${page} to the project's allowed origins (engine config: ` +
      `projects.${projectId}.origins; with the repository's demo engine: make run ALLOW_ORIGIN=${page}).`;
  }
  if (code === 'no_project') {
    return `[modalcore] the engine at ${engine} has no project '${projectId}': check projectId ` +
      `and the engine config's [projects].`;
  }
  return `[modalcore] the engine at ${engine} ended this page's session: ${code}: ${message}`;
}

/** `join.env`, as the browser tells it. */
export function readEnv(): Dict {
  const ua = navigator.userAgent;
  const touchMac = /Macintosh/.test(ua) && navigator.maxTouchPoints > 1;
  const platform = /iPhone|iPad|iPod/.test(ua) || touchMac ? 'ios' : /Android/.test(ua) ? 'android'
    : /Mac/.test(ua) ? 'mac' : /Win/.test(ua) ? 'windows' : /Linux|CrOS/.test(ua) ? 'linux' : 'other';
  const coarse = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
  const webApp = (window as { Telegram?: { WebApp?: { initData?: string; platform?: string } } }).Telegram?.WebApp;
  return {
    mobile: platform === 'ios' || platform === 'android' || /Mobi/.test(ua) || (coarse && innerWidth < 768),
    platform,
    telegram: Boolean(webApp && (webApp.initData || (webApp.platform && webApp.platform !== 'unknown'))),
    safari: /^((?!chrome|chromium|android|crios|fxios|edgios).)*safari/i.test(ua),
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone ?? '',
    origin: location.origin,
    width: Math.round(innerWidth),
    // the engine's language when the host sets no `locale` (PROTOCOL.md: at most 8 tags of 35)
    languages: (navigator.languages ?? [navigator.language]).filter((tag) => tag && tag.length <= 35).slice(0, 8),
  };
}

/** Wallet icons in `join` share this many characters, so that the frame stays under 64 KiB;
 * a wallet past it goes without its icon (its later announcements carry it one by one). */
const JOIN_ICON_BUDGET = 40_000;
/** PROTOCOL.md "Bounds": a session holds at most 32 announced wallets, icons of at most 16,384
 * characters; a join over them would be refused. */
const MAX_WALLETS = 32;
const MAX_ICON = 16_384;

export function fitWallets(wallets: readonly WalletInfo[]): Dict[] {
  let budget = JOIN_ICON_BUDGET;
  return wallets.slice(0, MAX_WALLETS).map((wallet) => {
    const fits = wallet.icon.length <= Math.min(budget, MAX_ICON);
    if (fits) budget -= wallet.icon.length;
    const info: Dict = { uuid: wallet.uuid, name: wallet.name, icon: fits ? wallet.icon : '', rdns: wallet.rdns };
    if (wallet.namespaces) info.namespaces = wallet.namespaces;
    return info;
  });
}

/** `join.opts`: the host options the engine reads, as plain data. */
function engineOptions(options: ModalOptions): Dict {
  const opts: Dict = {};
  for (const [key, value] of Object.entries(options)) {
    if (!LOCAL_OPTIONS.has(key) && value !== undefined && typeof value !== 'function') opts[key] = value;
  }
  return JSON.parse(JSON.stringify(opts)) as Dict;
}

/** The engine's base URL (http), where its own pages (the approval frame) are served. */
export function engineBase(engineUrl: string | undefined): string {
  return new URL(engineUrl ?? (SCRIPT_SRC ? new URL(SCRIPT_SRC).origin : location.origin), location.href).toString();
}

function Shell({ store, engine }: { store: ModalStore; engine: string }) {
  const view = useSyncExternalStore(store.subscribe, store.getView, store.getView);
  const ctx = useMemo<RenderCtx>(
    () => ({ send: store.press, pending: view.pending, themeMode: view.themeMode, themeVars: view.themeVars, engine }),
    [store, view.pending, view.themeMode, view.themeVars, engine],
  );
  return createElement(EngineBase.Provider, { value: engine }, createElement(ModalRoot, { tree: view.tree, ctx }));
}

function mount(options: ModalOptions, store: ModalStore): { element: HTMLElement; root: Root } {
  const element = document.createElement('modalcore-modal');
  const shadow = element.attachShadow({ mode: 'open' });
  const style = document.createElement('style');
  style.textContent = MODAL_CSS;
  const point = document.createElement('div');
  point.setAttribute('data-modalcore-root', '');
  shadow.append(style, point);
  const inPlace = options.embedded || options.disableAppend;
  const attach = () => (inPlace ? options.container : document.body)?.appendChild(element);
  if (inPlace || document.body) attach();
  else document.addEventListener('DOMContentLoaded', attach, { once: true });
  const root = createRoot(point);
  root.render(createElement(Shell, { store, engine: engineBase(options.engineUrl) }));
  return { element, root };
}

/** The EIP-1193 provider the host dApp uses: forwards to the connected wallet's provider; for
 * the embedded wallet (the auth connector) to the engine, which is that wallet, and for
 * WalletConnect to the engine, which holds the WalletConnect session. */
function hostProvider(bridge: WalletBridge, store: ModalStore, intent: (act: string, args: Dict) => Promise<void>): HostProvider {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  let lastAccounts = '';
  const connector = () => String(store.hostData('account')?.connector ?? '');
  const emit = (event: string, value: unknown) => {
    if (event === 'accountsChanged') {
      const key = JSON.stringify(value).toLowerCase();
      if (key === lastAccounts) return;
      lastAccounts = key;
    }
    for (const listener of listeners.get(event) ?? []) listener(value);
  };
  bridge.onWalletEvent((from, event, data) => {
    const wallet = bridge.provider(from);
    if (wallet && wallet === bridge.provider(connector())) emit(event, data);
  });
  store.subscribeHost('account', (account) => {
    const address = typeof account.address === 'string' ? account.address : '';
    emit('accountsChanged', account.isConnected && address ? [address] : []);
  });
  const provider: HostProvider = {
    request(args) {
      if (viaEngine(connector())) {
        // a fresh id each time: the engine's last answer (sent again on resume) matches no new request
        return embeddedRequest(intent, (listener) => store.subscribeHost('rpc', listener), randomId(), args);
      }
      const wallet = bridge.provider(connector());
      if (!wallet) return Promise.reject(Object.assign(new Error('Disconnected'), { code: 4900 }));
      return wallet.request(args);
    },
    on(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return provider;
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };
  return provider;
}

export function createModal(options: ModalOptions): Modal {
  const log = options.debug ? console.warn.bind(console, '[modalcore]') : () => undefined;
  const waiting = new Map<string, (status: IntentStatus) => void>();
  const opts = engineOptions(options);
  const send = (node: string, act: string, args: Dict) => transport.sendIntent(node, act, args);
  const store = new ModalStore(send, options.themeMode ?? 'dark');
  const reach = new Reachability((state) => store.setConnection(state));
  const bridge = new WalletBridge(window as never, (connector, event, data) => {
    if (event !== 'announce' || transport.joinedSocket) transport.sendWalletEvent(connector, event, data);
  });
  const transport: Transport = new Transport({
    url: socketUrl(options.engineUrl, options.projectId, options.companion ? 'ws/companion' : 'ws'),
    projectId: options.projectId,
    join: () => ({ env: readEnv(), opts, wallets: options.companion ? [] : fitWallets(bridge.wallets()) }),
    companion: options.companion,
    renewCompanion: options.renewCompanion,
    effects: bridge,
    socket: options.socket,
    storage: options.companion ? null : options.storage,
    sink: {
      tree: (tree) => store.setTree(tree),
      intentAck: (iid, status, error) => {
        if (status !== 'ok') log('intent', status, error ?? '');
        store.intentAck(iid, status);
        waiting.get(iid)?.(status);
        waiting.delete(iid);
      },
      hostEvent: (kind, data) => store.hostEvent(kind, data),
      theme: (mode, vars) => store.setTheme(mode, vars),
      problem: (code, message, fatal) => {
        if (fatal) console.error(refusalAdvice(code, message, options.projectId, options.engineUrl));
        else log(code, message);
      },
      status: (status) => reach.status(status),
    },
  });
  store.onRetry = () => transport.retryNow();
  const settle = (iid: string) =>
    new Promise<void>((resolve, reject) => {
      waiting.set(iid, (status) => (status === 'ok' ? resolve() : reject(new Error(`intent ${status}`))));
    });
  const intent = (act: string, args: Dict = {}) => settle(send(HOST_NODE, act, args));

  if (!options.companion) bridge.start(); // the phone's page announces no wallets
  const { element, root } = mount(options, store);
  transport.connect();
  let provider: HostProvider | null = null;

  const modal: Modal = {
    element,
    // open/close resolve whatever the engine says: its next frame shows the outcome.
    open: (o) => settle(store.hostOpen(true, 'open', o?.view ? { view: o.view } : {})).catch(() => undefined),
    close: () => settle(store.hostOpen(false, 'close', {})).catch(() => undefined),
    getState: () => ({ ...store.hostData('state') }),
    subscribeState: (cb) => store.subscribeHost('state', cb as (data: Dict) => void),
    subscribeAccount: (cb) => store.subscribeHost('account', cb as (data: Dict) => void),
    subscribeNetwork: (cb) => store.subscribeHost('network', cb as (data: Dict) => void),
    subscribeSiwx: (cb) => store.subscribeHost('siwx', cb as (data: Dict) => void),
    subscribeConnection: (cb) => store.subscribeHost('connection', cb as (data: Dict) => void),
    subscribeError: (cb) => store.subscribeHost('error', cb as (data: Dict) => void),
    switchNetwork: (caip2) => intent('switch_network', { network: caip2 }),
    disconnect: () => intent('disconnect'),
    signOut: () => intent('sign_out'),
    setThemeMode: (mode) => intent('set_theme_mode', { mode }),
    setThemeVariables: (variables) => intent('set_theme_variables', { variables }),
    getProvider: () => (provider ??= hostProvider(bridge, store, intent)),
    destroy: () => {
      if (liveModals.get(options.projectId) === modal) liveModals.delete(options.projectId);
      transport.destroy();
      reach.stop();
      bridge.stop();
      root.unmount();
      element.remove();
    },
  };
  liveModals.set(options.projectId, modal);
  return modal;
}
