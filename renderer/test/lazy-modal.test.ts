// Issue 40 item 8: the small entries answer with a modal at once and fetch its code later (on
// idle, hover, focus, pointerdown or open()); a call made before the code is there is kept and
// made once it arrives, in order (a click is never lost), and a fetch happens once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Modal, ModalOptions } from '../src/host';
import { createLazyModal, type ModalFactory } from '../src/lazy-modal';
import { liveModals } from '../src/live-modals';

const OPTIONS: ModalOptions = { projectId: 'lazy-test', networks: ['eip155:1'] };

type Calls = string[];

/** A stand-in for host.ts's modal: records what is called on it. */
function fakeModal(calls: Calls): Modal {
  const listeners = new Map<string, Set<(v: unknown) => void>>();
  const sub = (kind: string) => (cb: (v: never) => void) => {
    calls.push(`subscribe ${kind}`);
    const set = listeners.get(kind) ?? new Set();
    listeners.set(kind, set);
    set.add(cb as (v: unknown) => void);
    return () => {
      calls.push(`unsubscribe ${kind}`);
      set.delete(cb as (v: unknown) => void);
    };
  };
  const provider = {
    request: async (args: { method: string }) => {
      calls.push(`request ${args.method}`);
      return '0x1';
    },
    on: (event: string) => {
      calls.push(`on ${event}`);
      return provider;
    },
    removeListener: () => provider,
  };
  return {
    element: {} as HTMLElement,
    open: async (o) => void calls.push(`open ${o?.view ?? ''}`),
    close: async () => void calls.push('close'),
    getState: () => ({ open: true }),
    subscribeState: sub('state'),
    subscribeAccount: sub('account'),
    subscribeNetwork: sub('network'),
    subscribeSiwx: sub('siwx'),
    subscribeConnection: sub('connection'),
    subscribeError: sub('error'),
    switchNetwork: async (c) => void calls.push(`switch ${c}`),
    disconnect: async () => void calls.push('disconnect'),
    signOut: async () => void calls.push('sign out'),
    setThemeMode: async (m) => void calls.push(`theme ${m}`),
    setThemeVariables: async () => void calls.push('vars'),
    getProvider: () => provider,
    destroy: () => void calls.push('destroy'),
  };
}

/** A fetch of the modal's code that the test lets arrive (`arrive()`), counting the fetches. */
function slowCode(calls: Calls) {
  let release: (f: ModalFactory) => void = () => undefined;
  const arrived = new Promise<ModalFactory>((r) => (release = r));
  let fetches = 0;
  const factory: ModalFactory = () => {
    calls.push('create');
    return fakeModal(calls);
  };
  return {
    load: () => {
      fetches += 1;
      return arrived;
    },
    fetches: () => fetches,
    arrive: async () => {
      release(factory);
      await new Promise((r) => setImmediate(r));
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

test('rule: the modal answers at once and fetches its code only when its idle schedule runs, once', async () => {
  const calls: Calls = [];
  const code = slowCode(calls);
  let idle: (() => void) | null = null;
  const modal = createLazyModal(OPTIONS, code.load, (run) => (idle = run));
  assert.equal(code.fetches(), 0, 'nothing fetched before idle');
  assert.equal(modal.loaded, false);
  assert.deepEqual(modal.getState(), {});
  assert.equal(liveModals.get(OPTIONS.projectId), modal, '<modalcore-button> finds it');
  (idle as unknown as () => void)();
  modal.preload(); // hover after idle: no second fetch
  await code.arrive();
  assert.equal(code.fetches(), 1);
  assert.equal(modal.loaded, true);
  assert.deepEqual(calls, ['create']);
  modal.destroy();
  assert.equal(liveModals.get(OPTIONS.projectId), undefined);
});

test('rule: a click before the code is there opens the modal once it arrives, and is never lost', async () => {
  const calls: Calls = [];
  const code = slowCode(calls);
  const modal = createLazyModal(OPTIONS, code.load, () => undefined);
  const opened = modal.open({ view: 'Networks' });
  await tick();
  assert.deepEqual(calls, [], 'waiting for the code');
  await code.arrive();
  await opened;
  assert.deepEqual(calls, ['create', 'open Networks']);
  await modal.disconnect();
  await modal.signOut();
  assert.deepEqual(calls.slice(2), ['disconnect', 'sign out'], 'calls after the code is there go straight through');
  modal.destroy();
});

test('rule: subscriptions made before the code arrives are attached when it does; one dropped before never is', async () => {
  const calls: Calls = [];
  const code = slowCode(calls);
  const modal = createLazyModal(OPTIONS, code.load, () => undefined);
  const offAccount = modal.subscribeAccount(() => undefined);
  const offNetwork = modal.subscribeNetwork(() => undefined);
  offNetwork();
  modal.preload();
  await code.arrive();
  assert.deepEqual(calls, ['create', 'subscribe account']);
  offAccount();
  assert.deepEqual(calls.slice(2), ['unsubscribe account']);
  modal.subscribeState(() => undefined);
  assert.deepEqual(calls.slice(3), ['subscribe state'], 'after the code is there, at once');
  modal.destroy();
});

test('rule: a close() while the code is on its way cancels the opens asked before it', async () => {
  const calls: Calls = [];
  const code = slowCode(calls);
  const modal = createLazyModal(OPTIONS, code.load, () => undefined);
  const opened = modal.open();
  await modal.close();
  await code.arrive();
  await opened;
  assert.deepEqual(calls, ['create']);
  modal.destroy();
});

test('rule: the provider answers at once; requests wait for the code and listeners are attached then', async () => {
  const calls: Calls = [];
  const code = slowCode(calls);
  const modal = createLazyModal(OPTIONS, code.load, () => undefined);
  const provider = modal.getProvider();
  provider.on('accountsChanged', () => undefined);
  const chain = provider.request({ method: 'eth_chainId' });
  await code.arrive();
  assert.equal(await chain, '0x1');
  assert.deepEqual(calls, ['create', 'on accountsChanged', 'request eth_chainId']);
  modal.destroy();
});

test('rule: a modal destroyed before its code arrived is never made', async () => {
  const calls: Calls = [];
  const code = slowCode(calls);
  const modal = createLazyModal(OPTIONS, code.load, () => undefined);
  const opened = assert.rejects(modal.open(), /destroyed/);
  modal.destroy();
  await code.arrive();
  await opened;
  assert.deepEqual(calls, []);
});

test('rule: when the code is there already (a second modal), the modal is made at once', () => {
  const calls: Calls = [];
  const factory: ModalFactory = () => {
    calls.push('create');
    return fakeModal(calls);
  };
  let idle: (() => void) | null = null;
  const modal = createLazyModal(OPTIONS, () => factory, (run) => (idle = run));
  (idle as unknown as () => void)();
  assert.equal(modal.loaded, true);
  modal.destroy();
  assert.deepEqual(calls, ['create', 'destroy']);
});

test('rule: code that does not come is told as an unreachable engine, and the next call fetches again', async () => {
  const calls: Calls = [];
  let fetches = 0;
  const factory: ModalFactory = () => {
    calls.push('create');
    return fakeModal(calls);
  };
  const load = () => (++fetches === 1 ? Promise.reject(new Error('offline')) : Promise.resolve(factory));
  const modal = createLazyModal(OPTIONS, load, () => undefined);
  const told: string[] = [];
  modal.subscribeConnection((c) => told.push(c.status));
  modal.subscribeError((e) => told.push(`${e.code}: ${e.message}`));
  await assert.rejects(modal.open(), /offline/);
  assert.deepEqual(told, ['unreachable', "unreachable: the modal's code could not be loaded: offline"]);
  assert.equal(modal.loaded, false);
  await modal.open();
  assert.equal(fetches, 2);
  assert.deepEqual(calls, ['create', 'subscribe connection', 'subscribe error', 'open ']);
  modal.destroy();
});
