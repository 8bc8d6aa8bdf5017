/**
 * The account button and the network button a host page shows (`ConnectButton`,
 * `<modalcore-button>`), drawn without React into a container. What they show comes from the
 * engine's host events: `account.display` (profile name or truncated address), `account.balance`
 * ('9,998.992 ETH' once known), `account.avatar` (a profile image, else the address gradient),
 * `network.name` / `network.image`. The options only choose which of those parts are drawn.
 */
import { avatarGradient } from './components/avatar';
import { NETWORK_PATH } from './components/network-path';
import type { HostView, Modal } from './host';
import { UNREACHABLE_ERROR } from './offline';

type Dict = Record<string, unknown>;

export interface ButtonOptions {
  /** Text while not connected. */
  label: string;
  /** The balance beside the address (AppKit's `balance="show"`); default true. */
  balance?: boolean;
  /** The avatar before the address; default true. */
  avatar?: boolean;
  /** A network button before the account button (opens the Networks view); default false. */
  network?: boolean;
  /** The account button's class (the page styles it). */
  className?: string;
}

const text = (d: Dict | undefined, k: string): string => (typeof d?.[k] === 'string' ? (d[k] as string) : '');
/** The buttons' inline style (connect-button.tsx draws its placeholder with the same). */
export const ROW = 'display:inline-flex;align-items:center;gap:8px;white-space:nowrap;max-width:100%';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, style: string, content?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.style.cssText = style;
  if (content !== undefined) e.textContent = content;
  return e;
}

function image(src: string, size: number, background: string): HTMLElement {
  const s = el('span', `flex:none;width:${size}px;height:${size}px;border-radius:50%;overflow:hidden;background:${background} center/cover`);
  if (/^(https?:|data:image\/|\/)/i.test(src)) s.style.backgroundImage = `url("${src.replace(/"/g, '%22')}")`;
  s.setAttribute('aria-hidden', 'true');
  return s;
}

/** The network's image, or (none known, e.g. a dev chain) the modal's network glyph, as AppKit
 * shows a placeholder: an empty grey disc read as a missing icon. */
function networkImage(src: string): Element {
  if (src) return image(src, 20, 'rgba(128,128,128,.35)');
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  for (const [k, v] of Object.entries({ width: '18', height: '18', viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor',
    'stroke-width': '2', 'stroke-linejoin': 'round', 'aria-hidden': 'true', focusable: 'false', 'data-network-icon': '' })) {
    svg.setAttribute(k, v);
  }
  svg.style.cssText = 'flex:none';
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', NETWORK_PATH);
  svg.append(path);
  return svg;
}

/** Draws the buttons into `host` (replacing what it held). */
export function drawButtons(host: HTMLElement, account: Dict | undefined, network: Dict | undefined, opts: ButtonOptions,
  open: (view: HostView | undefined, button: HTMLElement) => void, unreachable = false): void {
  const connected = account?.isConnected === true && text(account, 'display') !== '';
  // Redraw only when something shown changed (keeps focus and hover on the same element).
  const key = JSON.stringify(connected ? [opts, account, network?.name, network?.image, unreachable] : [opts.label, opts.className, unreachable]);
  if (host.dataset.drawn === key) return;
  host.dataset.drawn = key;
  const parts: HTMLElement[] = [];
  if (connected && opts.network) {
    const nb = el('button', ROW, '');
    nb.type = 'button';
    nb.className = 'modalcore-network-button';
    nb.setAttribute('part', 'network');
    nb.setAttribute('aria-label', `Network: ${text(network, 'name') || 'unknown'}`);
    nb.append(networkImage(text(network, 'image')), el('span', '', text(network, 'name') || 'Network'));
    nb.addEventListener('click', () => open('Networks', nb));
    parts.push(nb);
  }
  const b = el('button', ROW);
  b.type = 'button';
  b.className = opts.className ?? 'modalcore-connect-button';
  b.setAttribute('part', 'button');
  b.addEventListener('click', () => open(undefined, b));
  if (unreachable) {
    // the engine cannot be reached: a warning mark and its reason (offline.ts)
    b.dataset.state = 'unreachable';
    b.title = UNREACHABLE_ERROR;
    b.setAttribute('aria-description', UNREACHABLE_ERROR);
  }
  if (connected) {
    const address = text(account, 'address');
    b.title = address;
    const balance = text(account, 'balance');
    if (opts.balance !== false && balance) b.append(el('span', 'font-variant-numeric:tabular-nums', balance), el('span', 'width:1px;align-self:stretch;background:currentColor;opacity:.3'));
    if (opts.avatar !== false) b.append(image(text(account, 'avatar'), 20, avatarGradient(address)));
    b.append(el('span', '', text(account, 'display')));
  } else {
    b.textContent = opts.label;
  }
  if (unreachable) {
    const mark = el('span', 'flex:none;display:inline-grid;place-items:center;width:16px;height:16px;border-radius:50%;background:#e5484d;color:#fff;font:700 11px/1 system-ui,sans-serif', '!');
    mark.setAttribute('aria-hidden', 'true');
    b.prepend(mark);
  }
  parts.push(b);
  host.replaceChildren(...parts);
}

/** What the buttons need of a modal; a lazy one (lazy-modal.ts) also says whether its code is
 * there and fetches it on `preload()`. */
export type ButtonModal = Pick<Modal, 'open' | 'subscribeAccount' | 'subscribeNetwork'> & Partial<Pick<Modal, 'subscribeConnection'>>
  & { preload?(): void; readonly loaded?: boolean };

/** A press before the modal's code is there (issue 40 item 8): the button says so at once
 * (`aria-busy`, dimmed, a progress cursor; nothing moves) until the modal has opened. */
function pressedWhileLoading(button: HTMLElement, opened: Promise<void>): void {
  button.setAttribute('aria-busy', 'true');
  const { opacity, cursor } = button.style;
  button.style.opacity = '.7';
  button.style.cursor = 'progress';
  const done = () => {
    button.removeAttribute('aria-busy');
    button.style.opacity = opacity;
    button.style.cursor = cursor;
  };
  opened.then(done, done);
}

const WARM_EVENTS = ['pointerenter', 'pointerdown', 'focusin'] as const;

/** Draws the buttons into `host` now and again on every account or network event of `modal`
 * (the `ConnectButton` and `<modalcore-button>` alike); returns the unsubscribe. A lazy modal's
 * code is fetched as soon as the pointer enters the buttons, presses them, or they get focus. */
export function mountButtons(host: HTMLElement, modal: ButtonModal, opts: ButtonOptions): () => void {
  let account: Dict | undefined;
  let network: Dict | undefined;
  let unreachable = false;
  const open = (view: HostView | undefined, button: HTMLElement): void => {
    const opened = modal.open(view ? { view } : undefined);
    if (modal.loaded === false) pressedWhileLoading(button, opened);
  };
  const draw = (): void => drawButtons(host, account, network, opts, open, unreachable);
  const warm = (): void => modal.preload?.();
  if (modal.preload) for (const event of WARM_EVENTS) host.addEventListener(event, warm);
  draw();
  const offC = modal.subscribeConnection?.((c) => {
    unreachable = c.status === 'unreachable';
    draw();
  });
  const offA = modal.subscribeAccount((a) => {
    account = a;
    draw();
  });
  const offN = modal.subscribeNetwork((n) => {
    network = n;
    draw();
  });
  return () => {
    offA();
    offN();
    offC?.();
    for (const event of WARM_EVENTS) host.removeEventListener(event, warm);
    delete host.dataset.drawn; // a later mount draws its own buttons (their clicks open its modal)
  };
}
