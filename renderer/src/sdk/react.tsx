/**
 * `@modalcore/sdk/react`: `<ModalProvider>`, hooks and `<ConnectButton>`. React is the host's
 * (a peer dependency). The modal is created in an effect, so server rendering and the first
 * client render see the defaults below and touch no `window`, storage or IndexedDB.
 */
import { Fragment, type ReactNode, createContext, createElement, useContext, useEffect, useRef, useState } from 'react';
import { ConnectButton as ButtonWithModal } from '../connect-button';
import type { ButtonOptions } from '../button-view';
import type { HostProvider, HostView, Modal, Unsubscribe } from '../host';
import type { AccountState, ModalState, NetworkOption, NetworkState, SignInState, WalletInfo } from '../host-events';
import { type ModalOptions, type ModalSource, createModal, resolveModal } from './index';
import { type ModalEvent, signIn as signInWith, subscribeEvents, walletInfo } from './actions';
import { type CustomButtonProps, customButtonProps } from './custom-button';

const ModalContext = createContext<Modal | null>(null);

export type ModalProviderProps = {
  /** Options of the modal this provider creates at mount (and destroys at unmount)… */
  options?: ModalOptions;
  /** …or a modal made elsewhere (e.g. `lazyModal(options)` shared with the wagmi connector). */
  modal?: ModalSource;
  children?: ReactNode;
};

export function ModalProvider({ options, modal, children }: ModalProviderProps) {
  const [live, setLive] = useState<Modal | null>(null);
  const first = useRef({ options, modal });
  // A modal whose provider was just unmounted, destroyed a moment later unless the provider
  // mounts again first: React's StrictMode (the Vite and Next.js templates' default in
  // development) unmounts and remounts every effect once, and destroying there ended the
  // visitor's session (`leave`), opened a second socket and unmounted a root mid-render.
  const leaving = useRef<{ modal: Modal; timer: ReturnType<typeof setTimeout> } | null>(null);
  useEffect(() => {
    const { options: opts, modal: source } = first.current;
    if (source) {
      setLive(resolveModal(source));
      return;
    }
    if (!opts) throw new Error('ModalProvider needs `options` or `modal`');
    let created: Modal;
    if (leaving.current) {
      clearTimeout(leaving.current.timer);
      created = leaving.current.modal;
      leaving.current = null;
    } else {
      created = createModal(opts);
    }
    setLive(created);
    return () => {
      setLive(null);
      const timer = setTimeout(() => {
        leaving.current = null;
        created.destroy();
      }, 0);
      leaving.current = { modal: created, timer };
    };
  }, []);
  return createElement(ModalContext.Provider, { value: live }, children);
}

const INITIAL_STATE: ModalState = {
  open: false, connected: false, loading: false, view: '', selectedNetworkId: '', activeChain: '', initialized: false,
};
const NO_ACCOUNT: AccountState = {
  address: '', caipAddress: '', isConnected: false, status: 'disconnected', connector: '', display: '',
  balance: '', avatar: '',
};
const NO_NETWORK: NetworkState = { caipNetworkId: '', chainId: '', name: '', image: '', supported: true };
const NO_SIGN_IN: SignInState = { enabled: false, signedIn: false, token: '' };

function useHostEvent<T>(initial: T, subscribe: (modal: Modal, cb: (value: T) => void) => Unsubscribe): T {
  const modal = useContext(ModalContext);
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    if (!modal) return;
    const unsubscribe = subscribe(modal, setValue);
    return () => {
      unsubscribe();
      setValue(initial);
    };
    // `subscribe` and `initial` are module constants of each hook
  }, [modal]); // eslint-disable-line react-hooks/exhaustive-deps
  return value;
}

const state = (m: Modal, cb: (v: ModalState) => void) => m.subscribeState(cb);
const account = (m: Modal, cb: (v: AccountState) => void) => m.subscribeAccount(cb);
const network = (m: Modal, cb: (v: NetworkState) => void) => m.subscribeNetwork(cb);
const signIn = (m: Modal, cb: (v: SignInState) => void) => m.subscribeSiwx(cb);

export type UseModal = {
  /** The modal once mounted (null during server rendering and the first client render). */
  modal: Modal | null;
  state: ModalState;
  isOpen: boolean;
  open(options?: { view?: HostView }): Promise<void>;
  close(): Promise<void>;
};

export function useModal(): UseModal {
  const modal = useContext(ModalContext);
  const current = useHostEvent(INITIAL_STATE, state);
  return {
    modal,
    state: current,
    isOpen: current.open,
    open: async (options) => modal?.open(options),
    close: async () => modal?.close(),
  };
}

export type UseAccount = AccountState & { disconnect(): Promise<void> };

export function useAccount(): UseAccount {
  const modal = useContext(ModalContext);
  const current = useHostEvent(NO_ACCOUNT, account);
  return { ...current, disconnect: async () => modal?.disconnect() };
}

export type UseNetwork = NetworkState & {
  /** The host's networks, in the host's order (empty before the engine's first frame). */
  networks: NetworkOption[];
  switchNetwork(caip2: string): Promise<void>;
};

export function useNetwork(): UseNetwork {
  const modal = useContext(ModalContext);
  const current = useHostEvent(NO_NETWORK, network);
  return { ...current, networks: current.networks ?? [], switchNetwork: async (caip2) => modal?.switchNetwork(caip2) };
}

export type UseSignIn = SignInState & {
  /** Opens the sign-in view; resolves once signed in (rejects with a `SignInError`). */
  signIn(): Promise<SignInState>;
  /** Ends the sign-in (with `siwx.required`, the connection too). */
  signOut(): Promise<void>;
};

const NO_MODAL = () => Promise.reject(new Error('modalcore: not mounted'));

export function useSignIn(): UseSignIn {
  const modal = useContext(ModalContext);
  const current = useHostEvent(NO_SIGN_IN, signIn);
  return {
    ...current,
    signIn: () => (modal ? signInWith(modal) : NO_MODAL()),
    signOut: async () => modal?.signOut(),
  };
}

/** The connected wallet's name, icon and type (`walletInfo` null while nothing is connected). */
export function useWalletInfo(): { walletInfo: WalletInfo | null } {
  return { walletInfo: walletInfo(useHostEvent(NO_ACCOUNT, account)) };
}

/** The EIP-1193 provider of the connected wallet (null during server rendering and while nothing
 * is connected). */
export function useProvider(): { provider: HostProvider | null; connector: string } {
  const modal = useContext(ModalContext);
  const current = useHostEvent(NO_ACCOUNT, account);
  return { provider: modal && current.isConnected ? modal.getProvider() : null, connector: current.connector };
}

/** Calls `callback` with each of the modal's events (`MODAL_OPEN`, `CONNECT_SUCCESS`, …) while
 * mounted, and returns the newest one (null before any). */
export function useModalEvents(callback?: (event: ModalEvent) => void): ModalEvent | null {
  const modal = useContext(ModalContext);
  const [last, setLast] = useState<ModalEvent | null>(null);
  const listener = useRef(callback);
  listener.current = callback;
  useEffect(() => {
    if (!modal) return;
    return subscribeEvents(modal, (event) => {
      setLast(event);
      listener.current?.(event);
    });
  }, [modal]);
  return last;
}

export type ConnectButtonProps = Partial<ButtonOptions> & { modal?: Modal };

/** "Connect Wallet", or once connected the account button (and with `network` a network button);
 * opens the provider's modal (or `modal`). */
export function ConnectButton({ modal, ...options }: ConnectButtonProps) {
  const fromContext = useContext(ModalContext);
  return createElement(ButtonWithModal, { ...options, modal: modal ?? fromContext });
}

/** RainbowKit's `ConnectButton.Custom`: draw your own button from the account, the chain and
 * the three openers; `mounted` is false during server rendering and the first client render. */
function CustomConnectButton({ children }: { children: (props: CustomButtonProps) => ReactNode }) {
  const modal = useContext(ModalContext);
  const props = customButtonProps(modal, useHostEvent(NO_ACCOUNT, account), useHostEvent(NO_NETWORK, network),
    useHostEvent(NO_SIGN_IN, signIn), useHostEvent(INITIAL_STATE, state));
  return createElement(Fragment, null, children(props));
}
ConnectButton.Custom = CustomConnectButton;

export type { AccountState, ModalState, NetworkState, SignInState, Modal, ModalOptions, ModalEvent, NetworkOption, WalletInfo, CustomButtonProps, HostProvider, HostView };
export { SignInError, type ModalEventType } from './actions';
