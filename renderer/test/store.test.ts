/** Local pending hints and the open override: shown at once, replaced by the engine's answer. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ModalStore } from '../src/store';
import type { WireNode } from '../src/tree';

const tree = (open: boolean, extra: Record<string, unknown> = {}): WireNode => ({
  id: 'modal',
  t: 'modal',
  p: { open, ...extra },
  c: [
    { id: 'go', t: 'button', p: { text: 'Go', variant: 'main', on: { press: 'spinner', select: null } } },
    { id: 'x', t: 'button', p: { text: 'Close', variant: 'ghost', on: { press: 'close' } } },
    { id: 'back', t: 'button', p: { text: 'Back', variant: 'ghost', on: { press: { back: 'view/connect' } } } },
  ],
});

function setup() {
  const sent: Array<[string, string, Record<string, unknown>]> = [];
  const store = new ModalStore((node, act, args) => {
    sent.push([node, act, args]);
    return `iid${sent.length}`;
  });
  let renders = 0;
  store.subscribe(() => (renders += 1));
  return { store, sent, renders: () => renders };
}

test('press applies the node pending hint at once, before the engine answers', () => {
  const { store, sent } = setup();
  store.setTree(tree(true));
  store.press('go', 'press', {});
  assert.deepEqual(sent, [['go', 'press', {}]]);
  assert.equal(store.getView().pending.get('go'), 'spinner');
  store.press('back', 'press');
  assert.deepEqual(store.getView().pending.get('back'), { back: 'view/connect' });
});

test('an action without a hint sends without local state', () => {
  const { store, sent } = setup();
  store.setTree(tree(true));
  store.press('go', 'select', { value: 'a' });
  assert.equal(store.getView().pending.size, 0);
  assert.deepEqual(sent, [['go', 'select', { value: 'a' }]]);
});

test('the hint stays until the intent is acknowledged and the next tree arrives', () => {
  const { store } = setup();
  store.setTree(tree(true));
  store.press('go', 'press');
  store.setTree(tree(true, { loading: true })); // a frame the engine sent before our intent
  assert.equal(store.getView().pending.get('go'), 'spinner');
  store.intentAck('iid1', 'ok');
  assert.equal(store.getView().pending.get('go'), 'spinner');
  store.setTree(tree(true));
  assert.equal(store.getView().pending.size, 0);
});

test('a refused intent drops its hint at once', () => {
  const { store } = setup();
  store.setTree(tree(true));
  store.press('go', 'press');
  store.intentAck('iid1', 'invalid');
  assert.equal(store.getView().pending.size, 0);
});

test('a close hint hides the modal at once', () => {
  const { store } = setup();
  store.setTree(tree(true));
  store.press('x', 'press');
  assert.equal(store.getView().tree?.p?.open, false);
  store.intentAck('iid1', 'ok');
  store.setTree(tree(false));
  assert.equal(store.getView().tree?.p?.open, false);
});

test('open() shows the held tree in the next render and the engine confirms or corrects it', () => {
  const { store, sent, renders } = setup();
  const held = tree(false);
  store.setTree(held);
  const states: unknown[] = [];
  store.hostEvent('state', { open: false, view: 'Connect' });
  store.subscribeHost('state', (s) => states.push(s.open));
  const before = renders();
  store.hostOpen(true, 'open', {});
  assert.equal(renders(), before + 1);
  assert.equal(store.getView().tree?.p?.open, true);
  assert.equal(store.getView().tree?.c, held.c, 'children are the held ones, not copies');
  assert.deepEqual(sent.at(-1), ['host', 'open', {}]);
  assert.deepEqual(states, [false, true]);
  assert.equal(store.hostData('state')?.open, true);
  store.intentAck('iid1', 'ok');
  store.setTree(tree(false)); // the engine says closed (e.g. it refused to open): it wins
  assert.equal(store.getView().tree?.p?.open, false);
});

test('open({view}) naming a view the held tree does not show waits for the engine', () => {
  const { store, sent } = setup();
  store.setTree(tree(false, { view: 'Connect' }));
  store.hostOpen(true, 'open', { view: 'Networks' });
  assert.deepEqual(sent.at(-1), ['host', 'open', { view: 'Networks' }]);
  assert.equal(store.getView().tree?.p?.open, false, 'no local guess: it would show the wrong view');
  store.hostOpen(true, 'open', { view: 'Connect' });
  assert.equal(store.getView().tree?.p?.open, true, 'the held view is the one asked for');
});

test('theme frames reach the render context', () => {
  const { store } = setup();
  store.setTheme('light', { '--w3m-accent': '#ff0000', '--z': 999 });
  assert.equal(store.getView().themeMode, 'light');
  assert.deepEqual(store.getView().themeVars, { '--w3m-accent': '#ff0000', '--z': '999' });
});

test('host subscribers get the current value at once and every change', () => {
  const { store } = setup();
  const seen: unknown[] = [];
  const off = store.subscribeHost('account', (a) => seen.push(a.address));
  store.hostEvent('account', { address: '0x1' });
  store.hostEvent('account', { address: '0x2' });
  off();
  store.hostEvent('account', { address: '0x3' });
  store.subscribeHost('account', (a) => seen.push(a.address));
  assert.deepEqual(seen, ['0x1', '0x2', '0x3']);
});
