// What the SDK's hooks are made of (issue 40 item 6): signIn() opens the sign-in view and ends
// on the engine's siwx event (or the close before it), the events derived from the host events,
// the connected wallet's info and ConnectButton.Custom's render props.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SignInError, eventsOf, signIn, walletInfo, type EventMemory } from '../src/sdk/actions';
import { customButtonProps } from '../src/sdk/custom-button';
import type { AccountState, ModalState, NetworkState, SignInState } from '../src/host-events';
import { ModalStore, type Dict } from '../src/store';

const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const state = (open: boolean, connected: boolean, view = open ? 'SIWXSignMessage' : ''): ModalState => ({
  open, connected, loading: false, view, selectedNetworkId: 'eip155:1', activeChain: 'eip155', initialized: true,
});
const account = (isConnected: boolean): AccountState => ({
  address: isConnected ? ADDRESS : '', caipAddress: '', isConnected, status: isConnected ? 'connected' : 'disconnected',
  connector: isConnected ? 'dev.modalcore.devwallet' : '', display: isConnected ? '0xf3…2266' : '', balance: isConnected ? '1 ETH' : '',
  avatar: '', ...(isConnected ? { walletInfo: { name: 'Dev Wallet', icon: 'data:x', type: 'ANNOUNCED' } } : {}),
});
const siwx = (enabled: boolean, signedIn: boolean): SignInState => ({ enabled, signedIn, token: signedIn ? 't' : '' });
const network = (caip: string, supported = true): NetworkState => ({
  caipNetworkId: caip, chainId: caip.split(':')[1] ?? '', name: 'Ethereum', image: '', supported,
  networks: [{ caipNetworkId: 'eip155:1', name: 'Ethereum', image: '' }],
});

function modal(connected: boolean, enabled = true) {
  const store = new ModalStore(() => 'i1', 'dark');
  store.hostEvent('state', state(false, connected) as unknown as Dict);
  store.hostEvent('account', account(connected) as unknown as Dict);
  store.hostEvent('siwx', siwx(enabled, false) as unknown as Dict);
  const opened: unknown[] = [];
  const on = <T>(kind: string) => (cb: (v: T) => void) => store.subscribeHost(kind, cb as unknown as (d: Dict) => void);
  return {
    store, opened,
    open: async (o?: unknown) => { opened.push(o); },
    subscribeAccount: on<AccountState>('account'),
    subscribeState: on<ModalState>('state'),
    subscribeSiwx: on<SignInState>('siwx'),
  };
}

const settled = async <T>(p: Promise<T>): Promise<T | 'pending'> =>
  Promise.race([p, new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);

test('signIn opens the sign-in view and resolves on the siwx event that says signed in', async () => {
  const m = modal(true);
  const outcome = signIn(m);
  assert.deepEqual(m.opened, [{ view: 'SIWXSignMessage' }]);
  m.store.hostEvent('state', state(true, true) as unknown as Dict);
  assert.equal(await settled(outcome), 'pending');
  m.store.hostEvent('siwx', siwx(true, true) as unknown as Dict);
  assert.deepEqual(await settled(outcome), siwx(true, true));
});

test('the close in the step that signs in waits for the siwx event that follows it', async () => {
  const m = modal(true);
  const outcome = signIn(m, 0);
  m.store.hostEvent('state', state(true, true) as unknown as Dict);
  m.store.hostEvent('state', state(false, true) as unknown as Dict); // the engine sends state before siwx
  m.store.hostEvent('siwx', siwx(true, true) as unknown as Dict);
  assert.deepEqual(await outcome, siwx(true, true));
});

test('signIn rejects when the visitor closes the modal before signing', async () => {
  const m = modal(true);
  const outcome = signIn(m, 0);
  m.store.hostEvent('state', state(true, true) as unknown as Dict);
  m.store.hostEvent('state', state(false, true) as unknown as Dict);
  await assert.rejects(outcome, (e: SignInError) => e.code === 'closed');
});

test('signIn refuses without sign-in set up or without an account, and opens nothing', async () => {
  const off = modal(true, false);
  await assert.rejects(signIn(off), (e: SignInError) => e.code === 'not_enabled');
  const alone = modal(false);
  await assert.rejects(signIn(alone), (e: SignInError) => e.code === 'not_connected');
  assert.deepEqual([...off.opened, ...alone.opened], []);
});

test('signIn resolves at once when already signed in', async () => {
  const m = modal(true);
  m.store.hostEvent('siwx', siwx(true, true) as unknown as Dict);
  assert.equal((await settled(signIn(m))) !== 'pending', true);
  assert.deepEqual(m.opened, []);
});

test('events: the first value of each kind is no event; changes are, once each', () => {
  const memory: EventMemory = {};
  const types = (kind: 'state' | 'account' | 'network' | 'siwx', value: Parameters<typeof eventsOf>[2]) =>
    eventsOf(memory, kind, value, 1).map((e) => e.type);
  assert.deepEqual(types('state', state(false, false)), []);
  assert.deepEqual(types('account', account(false)), []);
  assert.deepEqual(types('network', network('eip155:1')), []);
  assert.deepEqual(types('siwx', siwx(true, false)), []);
  assert.deepEqual(types('state', state(true, false)), ['MODAL_OPEN']);
  assert.deepEqual(types('account', { ...account(false), status: 'connecting' }), []);
  assert.deepEqual(types('account', account(true)), ['CONNECT_SUCCESS']);
  assert.deepEqual(types('account', account(true)), []);
  assert.deepEqual(types('network', network('eip155:8453')), ['SWITCH_NETWORK']);
  assert.deepEqual(types('siwx', siwx(true, true)), ['SIWX_AUTH_SUCCESS']);
  assert.deepEqual(types('siwx', siwx(true, false)), ['SIWX_SIGN_OUT']);
  assert.deepEqual(types('account', account(false)), ['DISCONNECT_SUCCESS']);
  assert.deepEqual(types('state', state(false, false)), ['MODAL_CLOSE']);
});

test('CONNECT_SUCCESS carries the address and the wallet', () => {
  const memory: EventMemory = { connected: false };
  const [event] = eventsOf(memory, 'account', account(true), 42);
  assert.deepEqual(event, { type: 'CONNECT_SUCCESS', timestamp: 42,
    data: { address: ADDRESS, walletInfo: { name: 'Dev Wallet', icon: 'data:x', type: 'ANNOUNCED' } } });
});

test('walletInfo is the connected wallet, null while disconnected', () => {
  assert.deepEqual(walletInfo(account(true)), { name: 'Dev Wallet', icon: 'data:x', type: 'ANNOUNCED' });
  assert.equal(walletInfo(account(false)), null);
  assert.equal(walletInfo({ isConnected: true }), null);
});

test('ConnectButton.Custom: nothing connected gives openers and no account or chain; unmounted says so', () => {
  const opened: unknown[] = [];
  const m = { open: async (o?: unknown) => { opened.push(o); } };
  const props = customButtonProps(m, account(false), network(''), siwx(false, false), state(false, false));
  assert.equal(props.account, undefined);
  assert.equal(props.chain, undefined);
  assert.equal(props.mounted, true);
  assert.equal(props.authenticationStatus, undefined);
  props.openConnectModal();
  props.openChainModal();
  assert.deepEqual(opened, [{ view: 'Connect' }, { view: 'Networks' }]);
  assert.equal(customButtonProps(null, account(false), network(''), siwx(false, false), state(false, false)).mounted, false);
});

test('ConnectButton.Custom: connected gives the account as the engine shows it and the chain', () => {
  const opened: unknown[] = [];
  const m = { open: async (o?: unknown) => { opened.push(o); } };
  const props = customButtonProps(m, account(true), network('eip155:8453', false), siwx(true, true), state(true, true, 'Networks'));
  assert.deepEqual(props.account, { address: ADDRESS, displayName: '0xf3…2266', displayBalance: '1 ETH' });
  assert.deepEqual(props.chain, { id: 'eip155:8453', chainId: 8453, name: 'Ethereum', unsupported: true });
  assert.equal(props.chainModalOpen, true);
  assert.equal(props.accountModalOpen, false);
  assert.equal(props.authenticationStatus, 'authenticated');
  props.openAccountModal();
  assert.deepEqual(opened, [{ view: 'Account' }]);
});
