/**
 * The script tag's file (`dist/loader.js`, served as `/static/loader.js`; global `ModalCore`):
 * the critical path of a host page (issue 40 item 8, ≤ 10 KiB gzip, build.mjs checks it). It
 * defines `<modalcore-button>` and draws the connect button at once, without React; the modal
 * itself (`modal.js`: React, the views, the transport) is fetched on idle, on the button's hover,
 * focus or pointerdown, or on `open()`, whichever comes first (lazy-modal.ts).
 *
 * The modal is fetched from the content-hashed URL of the `modal.js` built with this loader
 * (`modal.<digest>.js`, immutable: server/bundle.py), so a loader never runs with another build's
 * modal. Only when that URL is gone (an engine release came out while a page kept the previous
 * loader, cached five minutes) does it fall back to the current `/static/modal.js`, whose host
 * API is the same. The injected script carries this script's nonce, for pages whose CSP allows
 * scripts by nonce.
 */
import { defineButtonElement } from './element';
import type { ModalOptions } from './host';
import { type LazyModal, type ModalFactory, createLazyModal } from './lazy-modal';
import type * as Full from './index';

/** `modal.<digest>.js`: set by build.mjs (esbuild `define`) from the modal.js it just built. */
declare const MODALCORE_BUNDLE: string;

type FullApi = typeof Full;
type Global = { ModalCore?: unknown };

const script = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null;
const base = script?.src || (typeof location !== 'undefined' ? location.href : '');

/** The hashed name of the modal this loader fetches (for tests and the bench). */
export const bundle = MODALCORE_BUNDLE;

function inject(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tag = document.createElement('script');
    tag.src = src;
    tag.async = true;
    if (script?.nonce) tag.nonce = script.nonce;
    tag.onload = () => resolve();
    tag.onerror = () => {
      tag.remove();
      reject(new Error(`modalcore: could not load ${src}`));
    };
    document.head.append(tag);
  });
}

let full: Promise<FullApi> | null = null;
let factory: ModalFactory | null = null;

/** Fetches the modal (once): its API, React included (`ModalCore.React`, `ConnectButton`). */
export function load(): Promise<FullApi> {
  full ??= (async () => {
    const g = globalThis as Global;
    const own = g.ModalCore;
    await inject(new URL(MODALCORE_BUNDLE, base).href).catch(() => inject(new URL('modal.js', base).href));
    const api = g.ModalCore as FullApi;
    // modal.js declares the global `ModalCore` again: keep this loader's createModal (the
    // modals made before share its button element and registry) beside the bundle's React
    g.ModalCore = { ...api, ...(own as object) };
    factory = api.createModal;
    return api;
  })();
  full.catch(() => (full = null)); // the next call tries again
  return full;
}

/** As modal.js's `createModal`, at once: calls wait for the modal's code (lazy-modal.ts). */
export function createModal(options: ModalOptions): LazyModal {
  return createLazyModal(options, () => factory ?? load().then((api) => api.createModal));
}

export { defineButtonElement };
export type { Modal, ModalOptions, HostProvider } from './host';

defineButtonElement('modalcore-button', createModal);
