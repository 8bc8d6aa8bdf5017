/**
 * The wallet bridge: what only the page can do for the engine (PROTOCOL.md, "Effect kinds").
 * EIP-6963 discovery, the legacy `window.ethereum`, EIP-1193 requests, clipboard, links.
 * It runs what the engine asks and reports what wallets say; it decides nothing. Each effect kind
 * has its performer here, a named method the transport's one routing table calls (transport.ts).
 */

import { APP_READY, REGISTER, isSolanaWallet, runSolana, type StandardWallet } from './wallet-standard';

export interface Eip1193Provider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
  on?(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener?(event: string, listener: (...args: unknown[]) => void): unknown;
}

export interface WalletInfo {
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
  /** Wallet Standard wallets: ["solana"] (PROTOCOL.md, join.wallets); absent means eip155. */
  namespaces?: string[];
}

export type EffectError = { code: number; message: string };
export type EffectOutcome = { ok: true; result: unknown } | { ok: false; error: EffectError };
export type WalletEventSink = (connector: string, event: string, data: unknown) => void;

type Req = Record<string, unknown>;
type Listener = (...args: unknown[]) => void;

/** The part of `window` the bridge uses (a fake in tests). */
export interface BridgeWindow {
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
  dispatchEvent(event: Event): boolean;
  ethereum?: unknown;
  open?(url: string, target?: string, features?: string): unknown;
  location?: { assign(url: string): void };
  navigator?: { clipboard?: { writeText(text: string): Promise<void> } };
  document?: Document;
}

export const INJECTED = 'injected';
const STANDARD_PREFIX = 'wallet-standard:';
const WALLET_EVENTS = ['accountsChanged', 'chainChanged', 'disconnect'] as const;

function isProvider(value: unknown): value is Eip1193Provider {
  return typeof value === 'object' && value !== null && typeof (value as Eip1193Provider).request === 'function';
}

function str(value: unknown, max: number): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

const ICON_CHARS = 16_384; // rules/limits.py WALLET_ICON_CHARS: a longer icon is dropped, not cut

/** What a wallet says of itself, within the join's bounds (PROTOCOL.md, join.wallets). */
function walletInfo(uuid: string, name: unknown, icon: unknown, rdns: unknown): WalletInfo {
  const image = str(icon, ICON_CHARS + 1);
  return { uuid, name: str(name, 128), icon: image.length > ICON_CHARS ? '' : image, rdns: str(rdns, 256) };
}

/** EIP-1193 errors keep their numeric code; anything else is an internal error. */
export function toEffectError(error: unknown): EffectError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'number' && Number.isInteger(e.code) ? e.code : -32603;
  const message = typeof e.message === 'string' ? e.message : String(error);
  return { code, message: message.slice(0, 4096) };
}

/** A value that survives msgpack: plain JSON data (bigints become decimal strings). */
function plain(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

function eventData(event: string, args: unknown[]): unknown {
  const [first] = args;
  if (event === 'disconnect') return null;
  if (event === 'chainChanged' && typeof first === 'number') return `0x${first.toString(16)}`;
  return plain(first);
}

export class WalletBridge {
  private announced = new Map<string, { info: WalletInfo; provider: Eip1193Provider }>();
  private watched = new Map<string, Array<[string, Listener]>>();
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private listeners = new Set<WalletEventSink>();
  private standard = new Map<string, { info: WalletInfo; wallet: StandardWallet }>();
  private readonly onAnnounce = (event: Event): void => this.announce(event);
  private readonly onRegister = (event: Event): void => {
    const callback = (event as CustomEvent<unknown>).detail;
    if (typeof callback === 'function') callback(this.standardApi);
  };
  private readonly standardApi = {
    register: (...wallets: unknown[]): (() => void) => {
      for (const wallet of wallets) this.registerStandard(wallet);
      return () => undefined;
    },
  };

  constructor(
    private readonly win: BridgeWindow,
    /** Receives every wallet event to forward to the engine. */
    private readonly sink: WalletEventSink,
  ) {}

  start(): void {
    this.win.addEventListener('eip6963:announceProvider', this.onAnnounce);
    this.win.addEventListener(REGISTER, this.onRegister);
    this.discover();
  }

  stop(): void {
    this.win.removeEventListener('eip6963:announceProvider', this.onAnnounce);
    this.win.removeEventListener(REGISTER, this.onRegister);
    for (const uuid of [...this.watched.keys()]) this.unwatch(uuid);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** Asks the page's wallets to announce themselves (at start, and the `discover` effect's performer). */
  discover(): void {
    this.win.dispatchEvent(new Event('eip6963:requestProvider'));
    this.win.dispatchEvent(new CustomEvent(APP_READY, { detail: this.standardApi }));
  }

  /** Wallets for `join.wallets`: the announced ones, plus the legacy injected provider. */
  wallets(): WalletInfo[] {
    const list = [...this.announced.values(), ...this.standard.values()].map(({ info }) => info);
    if (this.legacy()) list.push({ uuid: INJECTED, name: 'Browser Wallet', icon: '', rdns: '' });
    return list.slice(0, 64);
  }

  /** The provider of a connector: by EIP-6963 uuid, `injected`, or else by rdns. */
  provider(connector: string): Eip1193Provider | undefined {
    if (connector === INJECTED) return this.legacy();
    const found = this.announced.get(connector);
    if (found || !connector) return found?.provider;
    for (const { info, provider } of this.announced.values()) if (info.rdns === connector) return provider;
    return undefined;
  }

  /** Listen to the wallet events the bridge forwards (the host's EIP-1193 provider uses it). */
  onWalletEvent(listener: WalletEventSink): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private legacy(): Eip1193Provider | undefined {
    const eth = this.win.ethereum;
    if (!isProvider(eth)) return undefined;
    for (const { provider } of this.announced.values()) if (provider === eth) return undefined;
    return eth;
  }

  private announce(event: Event): void {
    const detail = (event as CustomEvent<unknown>).detail as { info?: Req; provider?: unknown } | undefined;
    const info = detail?.info;
    if (!info || !isProvider(detail.provider)) return;
    const uuid = str(info.uuid, 128);
    if (!uuid || uuid === INJECTED) return;
    const clean = walletInfo(uuid, info.name, info.icon, info.rdns);
    const known = this.announced.get(uuid);
    this.announced.set(uuid, { info: clean, provider: detail.provider });
    if (!known) this.sink(uuid, 'announce', clean);
  }

  private registerStandard(wallet: unknown): void {
    if (!isSolanaWallet(wallet)) return;
    const uuid = (STANDARD_PREFIX + str(wallet.name, 100)).slice(0, 128);
    if (this.standard.has(uuid)) return;
    const info: WalletInfo = { ...walletInfo(uuid, wallet.name, wallet.icon, ''), namespaces: ['solana'] };
    this.standard.set(uuid, { info, wallet });
    this.sink(uuid, 'announce', info);
  }

  /** Forward a provider's events to the engine from now on. */
  watch(connector: string): void {
    const provider = this.provider(connector);
    if (this.watched.has(connector) || !provider?.on) return;
    const subs: Array<[string, Listener]> = WALLET_EVENTS.map((name) => {
      const listener = (...args: unknown[]): void => {
        const data = eventData(name, args);
        this.sink(connector, name, data);
        for (const l of this.listeners) l(connector, name, data);
      };
      provider.on?.(name, listener);
      return [name, listener];
    });
    this.watched.set(connector, subs);
  }

  private unwatch(connector: string): void {
    const provider = this.provider(connector);
    for (const [name, listener] of this.watched.get(connector) ?? []) provider?.removeListener?.(name, listener);
    this.watched.delete(connector);
  }

  /**
   * Runs one effect's work (a performer below, chosen by the transport's routing table); resolves
   * with its outcome, or a time-out after `timeoutMs` (never rejects).
   */
  run(eid: string, work: () => unknown, timeoutMs: number): Promise<EffectOutcome> {
    const done = Promise.resolve()
      .then(work)
      .then(
        (result): EffectOutcome => ({ ok: true, result: plain(result) }),
        (error: unknown): EffectOutcome => ({ ok: false, error: toEffectError(error) }),
      );
    const timeout = new Promise<EffectOutcome>((resolve) => {
      this.timers.set(
        eid,
        setTimeout(() => resolve({ ok: false, error: { code: -32603, message: 'timeout' } }), Math.max(0, timeoutMs)),
      );
    });
    return Promise.race([done, timeout]).finally(() => {
      clearTimeout(this.timers.get(eid));
      this.timers.delete(eid);
    });
  }

  /** The engine dropped an effect: stop its timer (a wallet prompt cannot be withdrawn). */
  cancel(eid: string): void {
    clearTimeout(this.timers.get(eid));
    this.timers.delete(eid);
  }

  // ----- the performers, one per effect kind (PROTOCOL.md, "Effect kinds")

  /** `eip1193`: `provider.request({method, params})` on the provider of the connector. */
  async eip1193(req: Req): Promise<unknown> {
    const connector = str(req.connector, 128);
    const provider = this.provider(connector);
    if (!provider) throw { code: 4900, message: `connector ${connector} is not available` };
    this.watch(connector);
    const args: { method: string; params?: unknown } = { method: str(req.method, 256) };
    if (req.params !== undefined && req.params !== null) args.params = req.params;
    return provider.request(args);
  }

  /** `solana`: a Wallet Standard feature of the connector's wallet. */
  async solana(req: Req): Promise<unknown> {
    const found = this.standard.get(str(req.connector, 128));
    if (!found) throw { code: 4900, message: `connector ${str(req.connector, 128)} is not available` };
    return runSolana(found.wallet, req);
  }

  /** `clipboard`: copy `text`. */
  clipboard(req: Req): Promise<null> {
    return this.copy(str(req.text, 1 << 20));
  }

  /** `open_url`: open `url` in a new tab, or in this one for `target` `_self`. */
  openUrl(req: Req): null {
    const url = str(req.url, 8192);
    if (/^\s*(javascript|data|vbscript):/i.test(url)) throw { code: -32602, message: 'url scheme refused' };
    if (req.target === '_self' && this.win.location) this.win.location.assign(url);
    else this.win.open?.(url, '_blank', 'noopener,noreferrer');
    return null;
  }

  private async copy(text: string): Promise<null> {
    const clipboard = this.win.navigator?.clipboard;
    try {
      if (!clipboard) throw new Error('no clipboard');
      await clipboard.writeText(text);
      return null;
    } catch (error) {
      const doc = this.win.document;
      if (!doc) throw error;
      const area = doc.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.style.cssText = 'position:fixed;top:0;left:0;opacity:0';
      doc.body.appendChild(area);
      area.select();
      const copied = doc.execCommand('copy');
      area.remove();
      if (!copied) throw { code: -32603, message: 'clipboard unavailable' };
      return null;
    }
  }
}
