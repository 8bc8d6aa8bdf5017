// The wagmi connector's connect() ends on the engine's state event that closes the modal: with
// `connected: false` the visitor closed it without connecting (connect() rejects with 4001);
// with `connected: true` the account event that follows resolves it. No grace timer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { untilConnectedOrClosed, untilReady } from '../src/sdk/connect-outcome';
import type { AccountState, ModalState } from '../src/host-events';
import { ModalStore, type Dict } from '../src/store';

const state = (open: boolean, connected: boolean): Dict => ({
  open, connected, loading: false, view: open ? 'Connect' : '', selectedNetworkId: 'eip155:1', activeChain: 'eip155',
  initialized: true,
});
const account = (isConnected: boolean): Dict => ({
  address: isConnected ? '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' : '', caipAddress: '', isConnected,
  status: isConnected ? 'connected' : 'disconnected', connector: isConnected ? 'injected' : '', display: '', balance: '', avatar: '',
});

function modal() {
  const store = new ModalStore(() => 'i1', 'dark');
  store.hostEvent('state', state(false, false));
  store.hostEvent('account', account(false));
  return {
    store,
    subscribeAccount: (cb: (a: AccountState) => void) => store.subscribeHost('account', cb as unknown as (d: Dict) => void),
    subscribeState: (cb: (s: ModalState) => void) => store.subscribeHost('state', cb as unknown as (d: Dict) => void),
  };
}

const settled = async <T>(p: Promise<T>): Promise<T | 'pending'> =>
  Promise.race([p, new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);

test('a close without a connection ends the attempt at once, in the state event that closes the modal', async () => {
  const m = modal();
  const outcome = untilConnectedOrClosed(m);
  m.store.hostEvent('state', state(true, false));
  assert.equal(await settled(outcome), 'pending');
  m.store.hostEvent('state', state(false, false));
  assert.equal(await settled(outcome), null);
});

test('a close in the step that connects waits for the account event that follows it', async () => {
  const m = modal();
  const outcome = untilConnectedOrClosed(m);
  m.store.hostEvent('state', state(true, false));
  m.store.hostEvent('state', state(false, true)); // the engine sends state before account
  assert.equal(await settled(outcome), 'pending');
  m.store.hostEvent('account', account(true));
  const a = await settled(outcome);
  assert.ok(a && a !== 'pending' && a.isConnected);
});

test('the closed state from before the modal opened is not a close', async () => {
  const m = modal();
  const outcome = untilConnectedOrClosed(m);
  assert.equal(await settled(outcome), 'pending');
});

test('the tree that opens the modal does not report the closed state of before to the subscribers', async () => {
  const m = modal();
  const seen: boolean[] = [];
  m.subscribeState((s) => seen.push(s.open));
  const outcome = untilConnectedOrClosed(m);
  const iid = m.store.hostOpen(true, 'open', {});
  m.store.intentAck(iid, 'ok');
  m.store.setTree({ id: 'modal', t: 'modal', p: { open: true }, c: [] } as never);
  m.store.hostEvent('state', state(true, false)); // the state event of the same step
  assert.deepEqual(seen, [false, true, true]);
  assert.equal(await settled(outcome), 'pending');
});

test('ready: the first initialized state resolves; an error event rejects at once (a refused origin)', async () => {
  const m = modal();
  const withErrors = { ...m, subscribeError: (cb: (e: { code: string; message: string }) => void) =>
    m.store.subscribeHost('error', cb as unknown as (d: Dict) => void) };
  assert.equal((await untilReady(withErrors, 10_000)).initialized, true);
  const fresh = new ModalStore(() => 'i1', 'dark');
  const pending = untilReady({
    subscribeState: (cb: (s: ModalState) => void) => fresh.subscribeHost('state', cb as unknown as (d: Dict) => void),
    subscribeError: (cb: (e: { code: string; message: string }) => void) => fresh.subscribeHost('error', cb as unknown as (d: Dict) => void),
  }, 10_000);
  fresh.hostEvent('error', { code: 'unreachable', message: 'The wallet service cannot be reached.' });
  await assert.rejects(pending, /modalcore: The wallet service cannot be reached\./);
});
