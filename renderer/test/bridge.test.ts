/** The wallet bridge against fake EIP-1193 providers announced through EIP-6963. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { type BridgeWindow, type Eip1193Provider, WalletBridge } from '../src/bridge';

class FakeProvider extends EventEmitter implements Eip1193Provider {
  calls: Array<{ method: string; params?: unknown }> = [];
  constructor(private readonly answer: (method: string) => Promise<unknown>) {
    super();
  }
  request(args: { method: string; params?: unknown }): Promise<unknown> {
    this.calls.push(args);
    return this.answer(args.method);
  }
}

function setup(extra: Partial<BridgeWindow> = {}) {
  const target = new EventTarget();
  const opened: unknown[][] = [];
  const copied: string[] = [];
  const win: BridgeWindow = {
    addEventListener: (t, l) => target.addEventListener(t, l),
    removeEventListener: (t, l) => target.removeEventListener(t, l),
    dispatchEvent: (e) => target.dispatchEvent(e),
    open: (...args: unknown[]) => opened.push(args),
    navigator: { clipboard: { writeText: async (text: string) => void copied.push(text) } },
    ...extra,
  };
  const events: unknown[][] = [];
  const bridge = new WalletBridge(win, (...args) => events.push(args));
  const announce = (uuid: string, provider: Eip1193Provider) =>
    target.dispatchEvent(
      new CustomEvent('eip6963:announceProvider', {
        detail: { info: { uuid, name: `W ${uuid}`, icon: 'data:,', rdns: `w.${uuid}` }, provider },
      }),
    );
  return { win, target, bridge, events, announce, opened, copied };
}

const wallet = () =>
  new FakeProvider(async (method) => {
    if (method === 'eth_accounts') return ['0xabc'];
    if (method === 'personal_sign') throw { code: 4001, message: 'User rejected the request.' };
    if (method === 'slow') return new Promise(() => undefined);
    throw new Error('boom');
  });

test('discovery: requestProvider on start; announcements kept; later ones reported', () => {
  const { target, bridge, events, announce } = setup();
  let requested = 0;
  target.addEventListener('eip6963:requestProvider', () => (requested += 1));
  announce('early', wallet()); // before start: not listened to yet
  bridge.start();
  assert.equal(requested, 1);
  announce('w1', wallet());
  announce('w1', wallet()); // the same wallet again: not a new announcement
  assert.deepEqual(bridge.wallets(), [{ uuid: 'w1', name: 'W w1', icon: 'data:,', rdns: 'w.w1' }]);
  assert.deepEqual(events, [['w1', 'announce', { uuid: 'w1', name: 'W w1', icon: 'data:,', rdns: 'w.w1' }]]);
});

test('a legacy window.ethereum is the "injected" connector unless it was announced', () => {
  const legacy = wallet();
  const a = setup({ ethereum: legacy });
  a.bridge.start();
  assert.deepEqual(a.bridge.wallets(), [{ uuid: 'injected', name: 'Browser Wallet', icon: '', rdns: '' }]);
  assert.equal(a.bridge.provider('injected'), legacy);
  a.announce('w1', legacy);
  assert.deepEqual(a.bridge.wallets().map((w) => w.uuid), ['w1']);
});

test('eip1193 effects: result, EIP-1193 error codes kept, other errors internal, time-out', async () => {
  const { bridge, announce } = setup();
  bridge.start();
  const provider = wallet();
  announce('w1', provider);
  const run = (method: string, timeout = 1000, connector = 'w1') =>
    bridge.run('e', () => bridge.eip1193({ connector, method, params: [] }), timeout);
  assert.deepEqual(await run('eth_accounts'), { ok: true, result: ['0xabc'] });
  assert.deepEqual(provider.calls[0], { method: 'eth_accounts', params: [] });
  assert.deepEqual(await run('personal_sign'), { ok: false, error: { code: 4001, message: 'User rejected the request.' } });
  assert.deepEqual(await run('other'), { ok: false, error: { code: -32603, message: 'boom' } });
  assert.deepEqual(await run('slow', 20), { ok: false, error: { code: -32603, message: 'timeout' } });
  assert.equal((await run('eth_accounts', 1000, 'gone')).ok, false);
});

test('events of a provider the engine used are forwarded', async () => {
  const { bridge, announce, events } = setup();
  bridge.start();
  const provider = wallet();
  announce('w1', provider);
  const hostSeen: unknown[][] = [];
  bridge.onWalletEvent((...args) => hostSeen.push(args));
  provider.emit('accountsChanged', ['0xdef']); // not used yet: not watched
  await bridge.run('e', () => bridge.eip1193({ connector: 'w1', method: 'eth_accounts' }), 1000);
  provider.emit('accountsChanged', ['0xdef']);
  provider.emit('chainChanged', 31337);
  provider.emit('chainChanged', '0x1');
  provider.emit('disconnect', { code: 4900 });
  const forwarded = events.slice(1);
  assert.deepEqual(forwarded, [
    ['w1', 'accountsChanged', ['0xdef']],
    ['w1', 'chainChanged', '0x7a69'],
    ['w1', 'chainChanged', '0x1'],
    ['w1', 'disconnect', null],
  ]);
  assert.deepEqual(hostSeen, forwarded);
  bridge.stop();
  provider.emit('accountsChanged', []);
  assert.equal(events.length, 5);
});

test('clipboard, open_url and discover', async () => {
  const { bridge, target, opened, copied } = setup();
  assert.deepEqual(await bridge.run('e1', () => bridge.clipboard({ text: '0xabc' }), 1000), { ok: true, result: null });
  assert.deepEqual(copied, ['0xabc']);
  const open = (eid: string, url: string) => bridge.run(eid, () => bridge.openUrl({ url, target: '_blank' }), 1000);
  assert.equal((await open('e2', 'https://example.org/x')).ok, true);
  assert.deepEqual(opened, [['https://example.org/x', '_blank', 'noopener,noreferrer']]);
  assert.deepEqual(await open('e3', 'javascript:alert(1)'), { ok: false, error: { code: -32602, message: 'url scheme refused' } });
  let requested = 0;
  target.addEventListener('eip6963:requestProvider', () => (requested += 1));
  assert.deepEqual(await bridge.run('e4', () => bridge.discover(), 1000), { ok: true, result: null });
  assert.equal(requested, 1);
});
