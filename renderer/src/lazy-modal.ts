/**
 * The modal before its code is there (issue 40 item 8): `createLazyModal(options, load)` answers
 * at once with a `Modal` whose calls wait for the real one. The small entries (the script tag's
 * `loader.js`, the npm package's `@modalcore/sdk`) draw the connect button with it and fetch the
 * rest (React, the views, the transport: `host.ts`) on idle, on the button's hover, focus or
 * pointerdown, or on `open()`, whichever comes first. A call made before then is kept and made,
 * in order, once the modal is there: a click is never lost. Imports nothing of React.
 */
import type { HostProvider, HostView, Modal, ModalOptions, Unsubscribe } from './host';
import type { ConnectionState, ModalError } from './host-events';
import { liveModals } from './live-modals';

/** The real `createModal` (host.ts), however it was fetched. */
export type ModalFactory = (options: ModalOptions) => Modal;

/** How long an idle preload waits at most for the page to be idle (requestIdleCallback's
 * timeout): a busy page still gets its modal within it. */
export const IDLE_TIMEOUT_MS = 2000;

/** A modal made by `createLazyModal`: `preload()` starts fetching now; `loaded` says whether the
 * real modal is there (the button marks a press made before then as busy). */
export type LazyModal = Modal & { preload(): void; readonly loaded: boolean };

type Subscribe = 'subscribeState' | 'subscribeAccount' | 'subscribeNetwork' | 'subscribeSiwx' | 'subscribeConnection' | 'subscribeError';
type Listener = (...args: unknown[]) => void;
type Subscription = { kind: Subscribe; callback: (value: never) => void; off: Unsubscribe | null };

/** Calls `run` once the page is idle, at most `IDLE_TIMEOUT_MS` later (a timer where the browser
 * has no requestIdleCallback, e.g. Safari). */
export function whenIdle(run: () => void): void {
  const idle = (globalThis as { requestIdleCallback?: (cb: () => void, o: { timeout: number }) => number }).requestIdleCallback;
  if (idle) idle(run, { timeout: IDLE_TIMEOUT_MS });
  else setTimeout(run, 200);
}

/** `load` gives the real `createModal`: at once when it is there already, else a promise. */
export function createLazyModal(options: ModalOptions, load: () => ModalFactory | Promise<ModalFactory>,
  schedule: (run: () => void) => void = whenIdle): LazyModal {
  let real: Modal | null = null;
  let loading: Promise<Modal> | null = null;
  let destroyed = false;
  let closes = 0; // a close() while the modal is being fetched cancels the opens asked before it
  let element: HTMLElement | null = null;
  const subscriptions = new Set<Subscription>();
  const providerListeners: [string, Listener][] = [];

  const attach = (modal: Modal, s: Subscription) => {
    s.off = (modal[s.kind] as (cb: (value: never) => void) => Unsubscribe)(s.callback);
  };
  const make = (create: ModalFactory): Modal => {
    if (real) return real;
    if (destroyed) throw new Error('modalcore: the modal was destroyed');
    const modal = create(options);
    real = modal;
    liveModals.set(options.projectId, lazy); // the real one registered itself where it shares the map
    for (const s of subscriptions) attach(modal, s);
    if (providerListeners.length > 0) {
      const provider = modal.getProvider();
      for (const [event, listener] of providerListeners) provider.on(event, listener);
    }
    return modal;
  };
  /** The code did not come (offline, blocked): the page hears it as it hears an engine it cannot
   * reach (the button's warning mark, the wagmi connector's connect() rejects at once), and the
   * next call fetches again. */
  const failed = (error: unknown): never => {
    loading = null;
    const message = `the modal's code could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
    for (const s of subscriptions) {
      if (s.kind === 'subscribeConnection') (s.callback as (c: ConnectionState) => void)({ status: 'unreachable' });
      if (s.kind === 'subscribeError') (s.callback as (e: ModalError) => void)({ code: 'unreachable', message });
    }
    throw error;
  };
  const ready = (): Promise<Modal> => {
    if (real) return Promise.resolve(real);
    if (!loading) {
      const got = load();
      loading = typeof got === 'function' ? Promise.resolve(make(got)) : got.then(make, failed);
    }
    return loading;
  };
  const preload = () => void (destroyed || ready().catch((error: unknown) => console.error('[modalcore] the modal could not be loaded:', error)));
  const later = <A extends unknown[]>(call: (m: Modal, ...args: A) => Promise<void>) =>
    (...args: A): Promise<void> => ready().then((m) => call(m, ...args));
  const subscribe = <K extends Subscribe>(kind: K) => ((callback: (value: never) => void): Unsubscribe => {
    const s: Subscription = { kind, callback, off: null };
    subscriptions.add(s);
    if (real) attach(real, s);
    return () => {
      subscriptions.delete(s);
      s.off?.();
    };
  }) as Modal[K];

  const provider: HostProvider = {
    request: (args) => ready().then((m) => m.getProvider().request(args)),
    on(event, listener) {
      providerListeners.push([event, listener]);
      real?.getProvider().on(event, listener);
      return provider;
    },
    removeListener(event, listener) {
      const at = providerListeners.findIndex(([e, l]) => e === event && l === listener);
      if (at >= 0) providerListeners.splice(at, 1);
      real?.getProvider().removeListener(event, listener);
      return provider;
    },
  };

  const lazy: LazyModal = {
    get loaded() {
      return real !== null;
    },
    /** The real modal's element once there; before, a detached placeholder (nothing is shown). */
    get element() {
      return real?.element ?? (element ??= document.createElement('div'));
    },
    preload,
    open: (o?: { view?: HostView }) => {
      const asked = closes;
      return ready().then((m) => (closes === asked ? m.open(o) : undefined));
    },
    // nothing is shown before the modal is there: a close then only cancels the opens asked before
    close: () => {
      closes += 1;
      return real ? real.close() : Promise.resolve();
    },
    getState: () => (real ? real.getState() : {}),
    subscribeState: subscribe('subscribeState'),
    subscribeAccount: subscribe('subscribeAccount'),
    subscribeNetwork: subscribe('subscribeNetwork'),
    subscribeSiwx: subscribe('subscribeSiwx'),
    subscribeConnection: subscribe('subscribeConnection'),
    subscribeError: subscribe('subscribeError'),
    switchNetwork: later((m, caip2: string) => m.switchNetwork(caip2)),
    disconnect: later((m) => m.disconnect()),
    signOut: later((m) => m.signOut()),
    setThemeMode: later((m, mode: Parameters<Modal['setThemeMode']>[0]) => m.setThemeMode(mode)),
    setThemeVariables: later((m, variables: Record<string, string | number>) => m.setThemeVariables(variables)),
    getProvider: () => provider,
    destroy: () => {
      destroyed = true;
      subscriptions.clear();
      if (liveModals.get(options.projectId) === lazy) liveModals.delete(options.projectId);
      real?.destroy();
    },
  };
  liveModals.set(options.projectId, lazy);
  schedule(preload);
  return lazy;
}
