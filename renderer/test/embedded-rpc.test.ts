// The host dApp's provider with the embedded wallet active (issue 15 §4): requests travel as the
// host intent `rpc` and resolve with the host event `rpc` of their own id; the engine's refusal
// ('Requested RPC call is not allowed', code 4200) rejects with its code and message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { embeddedRequest, viaEngine } from '../src/embedded-rpc';
import { ModalStore, type Dict } from '../src/store';

function world() {
  const store = new ModalStore(() => 'i1', 'dark');
  const sent: Dict[] = [];
  const send = (act: string, args: Dict) => {
    sent.push({ act, ...args });
    return Promise.resolve();
  };
  const subscribe = (listener: (answer: Dict) => void) => store.subscribeHost('rpc', listener);
  return { store, sent, send, subscribe };
}

test('a request is sent as the host intent rpc and resolves with the answer of its own id', async () => {
  const { store, sent, send, subscribe } = world();
  store.hostEvent('rpc', { id: 'old', ok: true, result: '0x1' }); // a stale answer: not ours
  const answer = embeddedRequest(send, subscribe, 'a1', { method: 'eth_chainId' });
  assert.deepEqual(sent, [{ act: 'rpc', id: 'a1', method: 'eth_chainId', params: [] }]);
  store.hostEvent('rpc', { id: 'other', ok: true, result: '0x2' });
  store.hostEvent('rpc', { id: 'a1', ok: true, result: '0x7a69' });
  assert.equal(await answer, '0x7a69');
});

test('a method the engine refuses rejects with its EIP-1193 code and message', async () => {
  const { store, send, subscribe } = world();
  const answer = embeddedRequest(send, subscribe, 'a2', { method: 'eth_sign', params: ['0x00', '0x00'] });
  store.hostEvent('rpc', { id: 'a2', ok: false, code: 4200, message: 'Requested RPC call is not allowed' });
  await assert.rejects(answer, (error: Error & { code: number }) =>
    error.code === 4200 && error.message === 'Requested RPC call is not allowed');
});

test('params that are not a list, or an intent the engine calls invalid, reject', async () => {
  const { send, subscribe } = world();
  await assert.rejects(embeddedRequest(send, subscribe, 'a3', { method: 'eth_call', params: { to: '0x' } }),
    (error: Error & { code: number }) => error.code === -32602);
  const refused = () => Promise.reject(new Error('intent invalid'));
  await assert.rejects(embeddedRequest(refused, subscribe, 'a4', { method: 'eth_chainId' }),
    (error: Error & { code: number }) => error.code === -32602);
});

test('the host provider routes to the engine for the embedded wallet and WalletConnect only (issue 13)', () => {
  assert.equal(viaEngine('ID_AUTH'), true);
  assert.equal(viaEngine('walletConnect'), true);
  assert.equal(viaEngine('io.metamask'), false);
  assert.equal(viaEngine('injected'), false);
  assert.equal(viaEngine(''), false);
});
