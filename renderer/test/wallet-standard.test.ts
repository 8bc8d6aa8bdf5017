/** Wallet Standard in the bridge: discovery both ways, Solana wallets announced with the
 * `solana` namespace, `solana` effects on the wallet's features, bytes as base64. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BridgeWindow, WalletBridge } from '../src/bridge';
import { fromBase64, toBase64 } from '../src/wallet-standard';

const ADDRESS = 'SuJsQsCbtNtogXTXfXKnuqSeyde72ryvUz3JhqPKRKg';

function fakeWallet(name = 'Sol Wallet', chains: string[] = ['solana:mainnet']) {
  const account = { address: ADDRESS, publicKey: new Uint8Array(32), chains, features: [] };
  const calls: Array<[string, unknown]> = [];
  let connected = false;
  const wallet = {
    version: '1.0.0',
    name,
    icon: 'data:,',
    chains,
    get accounts() {
      return connected ? [account] : [];
    },
    features: {
      'standard:connect': {
        connect: async () => {
          connected = true;
          calls.push(['connect', null]);
          return { accounts: [account] };
        },
      },
      'solana:signTransaction': {
        signTransaction: async (input: { transaction: Uint8Array; chain: string }) => {
          calls.push(['signTransaction', input.chain]);
          return [{ signedTransaction: new Uint8Array([...input.transaction, 9]) }];
        },
      },
      'solana:signMessage': {
        signMessage: async (input: { message: Uint8Array }) => {
          calls.push(['signMessage', new TextDecoder().decode(input.message)]);
          throw { code: 4001, message: 'User rejected the request.' };
        },
      },
    },
  };
  return { wallet, calls };
}

function setup() {
  const target = new EventTarget();
  const win: BridgeWindow = {
    addEventListener: (t, l) => target.addEventListener(t, l),
    removeEventListener: (t, l) => target.removeEventListener(t, l),
    dispatchEvent: (e) => target.dispatchEvent(e),
  };
  const events: unknown[][] = [];
  const bridge = new WalletBridge(win, (...args) => events.push(args));
  return { target, bridge, events };
}

test('a wallet registered before the page answers app-ready; one registered after is heard', () => {
  const { target, bridge, events } = setup();
  const early = fakeWallet('Early');
  target.addEventListener('wallet-standard:app-ready', (event) =>
    ((event as CustomEvent).detail as { register(w: unknown): void }).register(early.wallet),
  );
  bridge.start();
  const late = fakeWallet('Late');
  target.dispatchEvent(
    new CustomEvent('wallet-standard:register-wallet', {
      detail: (api: { register(w: unknown): void }) => api.register(late.wallet),
    }),
  );
  const infos = bridge.wallets();
  assert.deepEqual(
    infos.map((w) => [w.uuid, w.namespaces]),
    [
      ['wallet-standard:Early', ['solana']],
      ['wallet-standard:Late', ['solana']],
    ],
  );
  assert.deepEqual(
    events.map((e) => [e[0], e[1]]),
    [
      ['wallet-standard:Early', 'announce'],
      ['wallet-standard:Late', 'announce'],
    ],
  );
});

test('wallets without Solana chains or standard:connect are not connectors', () => {
  const { target, bridge } = setup();
  bridge.start();
  const register = (w: unknown) =>
    target.dispatchEvent(
      new CustomEvent('wallet-standard:register-wallet', { detail: (api: { register(w: unknown): void }) => api.register(w) }),
    );
  register(fakeWallet('Sui', ['sui:mainnet']).wallet);
  register({ name: 'No connect', chains: ['solana:mainnet'], features: {} });
  register(null);
  assert.deepEqual(bridge.wallets(), []);
});

test('solana effects: connect gives addresses, signTransaction base64 in and out, errors keep codes', async () => {
  const { target, bridge } = setup();
  bridge.start();
  const { wallet, calls } = fakeWallet();
  target.dispatchEvent(
    new CustomEvent('wallet-standard:register-wallet', {
      detail: (api: { register(w: unknown): void }) => api.register(wallet),
    }),
  );
  const connector = 'wallet-standard:Sol Wallet';
  assert.deepEqual(await bridge.run('e1', () => bridge.solana({ connector, method: 'standard:connect', params: {} }), 1000), {
    ok: true,
    result: [ADDRESS],
  });
  const tx = toBase64(new Uint8Array([1, 2, 3]));
  const signed = await bridge.run(
    'e2',
    () =>
      bridge.solana({
        connector,
        method: 'solana:signTransaction',
        params: { transaction: tx, account: ADDRESS, chain: 'solana:localnet' },
      }),
    1000,
  );
  assert.deepEqual(signed, { ok: true, result: { transaction: toBase64(new Uint8Array([1, 2, 3, 9])) } });
  const message = toBase64(new TextEncoder().encode('sign in'));
  assert.deepEqual(
    await bridge.run('e3', () => bridge.solana({ connector, method: 'solana:signMessage', params: { message, account: ADDRESS } }), 1000),
    { ok: false, error: { code: 4001, message: 'User rejected the request.' } },
  );
  assert.deepEqual(calls, [
    ['connect', null],
    ['signTransaction', 'solana:localnet'],
    ['signMessage', 'sign in'],
  ]);
  const unknown = await bridge.run('e4', () => bridge.solana({ connector: 'nope', method: 'standard:connect' }), 1000);
  assert.equal(unknown.ok, false);
  assert.deepEqual(Array.from(fromBase64(toBase64(new Uint8Array([0, 255])))), [0, 255]);
});
