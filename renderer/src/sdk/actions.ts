/**
 * What AppKit, RainbowKit and ConnectKit users reach for (issue 40 item 6), without React: the
 * sign-in actions, the modal's events and the connected wallet's info. The React hooks
 * (react.tsx) are these over the provider's modal.
 */
import type { Modal, Unsubscribe } from '../host';
import type { AccountState, ModalState, NetworkState, SignInState, WalletInfo } from '../host-events';

/** Thrown by `signIn` when the host set no `siwx` option, or the visitor closed the modal first. */
export class SignInError extends Error {
  constructor(message: string, readonly code: 'not_enabled' | 'not_connected' | 'closed') {
    super(message);
    this.name = 'SignInError';
  }
}

type Subscribable = Pick<Modal, 'open' | 'subscribeSiwx' | 'subscribeState' | 'subscribeAccount'>;

/** Opens the modal's sign-in (SIWX) view for the connected account and resolves with the
 * sign-in once the visitor signed; rejects when sign-in is off (no `siwx` option), nothing is
 * connected, or the modal closes first. Resolves at once when already signed in. The engine
 * closes the modal in the step that signs in, and its `state` event comes before that step's
 * `siwx` event (a frame each): a close is a refusal only when no sign-in follows within
 * `graceMs`. */
export function signIn(modal: Subscribable, graceMs = 1000): Promise<SignInState> {
  return new Promise((resolve, reject) => {
    const offs: Unsubscribe[] = [];
    let done = false;
    let opened = false;
    let siwx: SignInState | undefined;
    let connected = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const off of offs) off();
      settle();
    };
    offs.push(modal.subscribeAccount((a) => (connected = a.isConnected)));
    offs.push(modal.subscribeSiwx((s) => {
      siwx = s;
      if (s.signedIn) finish(() => resolve(s));
    }));
    if (done) return;
    if (siwx && !siwx.enabled) return finish(() => reject(new SignInError('modalcore: no `siwx` option', 'not_enabled')));
    if (!connected) return finish(() => reject(new SignInError('modalcore: not connected', 'not_connected')));
    offs.push(modal.subscribeState((s: ModalState) => {
      if (s.open) opened = true;
      else if (opened && timer === undefined) {
        timer = setTimeout(() => finish(() => reject(new SignInError('modalcore: closed before signing in', 'closed'))), graceMs);
      }
    }));
    void modal.open({ view: 'SIWXSignMessage' });
  });
}

/** Ends the sign-in session (with `siwx.required`, the connection too). */
export function signOut(modal: Pick<Modal, 'signOut'>): Promise<void> {
  return modal.signOut();
}

/** The connected wallet's name, icon and type; null while nothing is connected. */
export function walletInfo(account: Pick<AccountState, 'isConnected' | 'walletInfo'>): WalletInfo | null {
  return account.isConnected && account.walletInfo ? account.walletInfo : null;
}

/** What `subscribeEvents` reports, as AppKit's `useAppKitEvents` does: each a change the host
 * events showed (`data` is the event's own data: the account, network or sign-in). */
export type ModalEventType =
  | 'MODAL_OPEN' | 'MODAL_CLOSE' | 'CONNECT_SUCCESS' | 'DISCONNECT_SUCCESS' | 'SWITCH_NETWORK'
  | 'SIWX_AUTH_SUCCESS' | 'SIWX_SIGN_OUT';
export type ModalEvent = {
  type: ModalEventType;
  timestamp: number;
  data: { view?: string; connected?: boolean; address?: string; caipNetworkId?: string; walletInfo?: WalletInfo };
};

/** The last value of each host event the events are derived from. */
export type EventMemory = { open?: boolean; connected?: boolean; network?: string; signedIn?: boolean };

/** The events one host event brings, given what came before (the first value of each kind
 * brings none: a reloaded page resuming a connection did not just connect). */
export function eventsOf(memory: EventMemory, kind: 'state' | 'account' | 'network' | 'siwx',
  value: ModalState | AccountState | NetworkState | SignInState, now: number): ModalEvent[] {
  const event = (type: ModalEventType, data: ModalEvent['data']): ModalEvent => ({ type, timestamp: now, data });
  if (kind === 'state') {
    const s = value as ModalState;
    const was = memory.open;
    memory.open = s.open;
    if (was === undefined || was === s.open) return [];
    return [event(s.open ? 'MODAL_OPEN' : 'MODAL_CLOSE', { view: s.view, connected: s.connected })];
  }
  if (kind === 'account') {
    const a = value as AccountState;
    if (a.status === 'connecting' || a.status === 'reconnecting') return [];
    const was = memory.connected;
    memory.connected = a.isConnected;
    if (was === undefined || was === a.isConnected) return [];
    return [a.isConnected
      ? event('CONNECT_SUCCESS', { address: a.address, walletInfo: a.walletInfo })
      : event('DISCONNECT_SUCCESS', {})];
  }
  if (kind === 'network') {
    const n = value as NetworkState;
    const was = memory.network;
    memory.network = n.caipNetworkId;
    if (!was || !n.caipNetworkId || was === n.caipNetworkId) return [];
    return [event('SWITCH_NETWORK', { caipNetworkId: n.caipNetworkId })];
  }
  const s = value as SignInState;
  const was = memory.signedIn;
  memory.signedIn = s.signedIn;
  if (was === undefined || was === s.signedIn) return [];
  return [event(s.signedIn ? 'SIWX_AUTH_SUCCESS' : 'SIWX_SIGN_OUT', {})];
}

/** Calls `callback` with each event from now on; returns its unsubscribe function. */
export function subscribeEvents(modal: Pick<Modal, 'subscribeState' | 'subscribeAccount' | 'subscribeNetwork' | 'subscribeSiwx'>,
  callback: (event: ModalEvent) => void): Unsubscribe {
  const memory: EventMemory = {};
  const on = <T extends ModalState | AccountState | NetworkState | SignInState>(kind: 'state' | 'account' | 'network' | 'siwx') =>
    (value: T) => { for (const e of eventsOf(memory, kind, value, Date.now())) callback(e); };
  const offs = [
    modal.subscribeState(on('state')),
    modal.subscribeAccount(on('account')),
    modal.subscribeNetwork(on('network')),
    modal.subscribeSiwx(on('siwx')),
  ];
  return () => { for (const off of offs) off(); };
}
