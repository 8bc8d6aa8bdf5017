/** The engine cannot be reached: the visitor who pressed Connect sees a view saying so, with
 * "Try again"; the host hears `connection` and `error` (renderer-side events). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOCAL_RETRY, Reachability, UNREACHABLE_AFTER_MS, UNREACHABLE_TITLE } from '../src/offline';
import { ModalStore } from '../src/store';
import type { WireNode } from '../src/tree';

function fakeTimers() {
  const due: Array<{ fn: () => void; at: number; id: number }> = [];
  let now = 0;
  let next = 0;
  return {
    setTimeout: (fn: () => void, ms: number) => {
      next += 1;
      due.push({ fn, at: now + ms, id: next });
      return next;
    },
    clearTimeout: (id: unknown) => {
      const i = due.findIndex((d) => d.id === id);
      if (i >= 0) due.splice(i, 1);
    },
    advance(ms: number) {
      now += ms;
      for (const d of due.filter((x) => x.at <= now)) {
        due.splice(due.indexOf(d), 1);
        d.fn();
      }
    },
  };
}

function setup() {
  const sent: Array<[string, string]> = [];
  const store = new ModalStore((node, act) => {
    sent.push([node, act]);
    return `iid${sent.length}`;
  });
  const timers = fakeTimers();
  const reach = new Reachability((state) => store.setConnection(state), timers);
  const host: Array<[string, Record<string, unknown>]> = [];
  store.subscribeHost('connection', (d) => host.push(['connection', d]));
  store.subscribeHost('error', (d) => host.push(['error', d]));
  return { store, sent, timers, reach, host };
}

const title = (tree: WireNode | null): string => String(tree?.c?.[0]?.p?.title ?? '');

test('a refused socket shows the unreachable view to a visitor who pressed Connect, at once', () => {
  const { store, reach, host } = setup();
  reach.status('connecting');
  store.hostOpen(true, 'open', {});
  assert.equal(store.getView().tree, null); // no word yet: the attempt is under way
  reach.status('closed');
  const tree = store.getView().tree;
  assert.equal(tree?.p?.open, true);
  assert.equal(title(tree), UNREACHABLE_TITLE);
  assert.deepEqual(host, [
    ['connection', { status: 'unreachable' }],
    ['error', { code: 'unreachable', message: 'The wallet service cannot be reached' }],
  ]);
});

test('a hanging attempt is told after UNREACHABLE_AFTER_MS (under the 2 s the visitor waits)', () => {
  const { store, reach, timers } = setup();
  reach.status('connecting');
  store.hostOpen(true, 'open', {});
  timers.advance(UNREACHABLE_AFTER_MS - 1);
  assert.equal(store.getView().tree, null);
  timers.advance(1);
  assert.equal(title(store.getView().tree), UNREACHABLE_TITLE);
  assert.ok(UNREACHABLE_AFTER_MS <= 2000);
});

test('an open socket is an engine that answers: a slow join is not called unreachable', () => {
  const { store, reach, timers, host } = setup();
  reach.status('connecting');
  reach.status('open');
  store.hostOpen(true, 'open', {});
  timers.advance(10 * UNREACHABLE_AFTER_MS);
  assert.equal(store.getView().tree, null);
  assert.deepEqual(host, []);
});

test('Try again asks the transport, shows it busy, and the engine tree replaces the view once joined', () => {
  const { store, reach } = setup();
  let retries = 0;
  store.onRetry = () => (retries += 1);
  reach.status('connecting');
  store.hostOpen(true, 'open', {});
  reach.status('closed');
  store.press(LOCAL_RETRY, 'press');
  assert.equal(retries, 1);
  const busy = (): unknown => store.getView().tree?.c?.[1]?.c?.[0]?.c?.[2]?.p?.busy;
  assert.equal(busy(), true);
  reach.status('connecting');
  reach.status('closed'); // refused again: the button is free again
  assert.equal(busy(), false);
  reach.status('connecting');
  reach.status('joined');
  store.setTree({ id: 'modal', t: 'modal', p: { open: true, view: 'Connect' }, c: [] });
  assert.equal(store.getView().tree?.p?.view, 'Connect');
});

test('closing the unreachable view closes it here and queues a close after the open', () => {
  const { store, reach, sent } = setup();
  reach.status('connecting');
  store.hostOpen(true, 'open', {});
  reach.status('closed');
  store.press('local:modal', 'close');
  assert.equal(store.getView().tree, null);
  assert.deepEqual(sent, [['host', 'open'], ['host', 'close']]);
});

test('a press on the local view never reaches the engine; a visitor who did not press sees nothing', () => {
  const { store, reach, sent } = setup();
  reach.status('connecting');
  reach.status('closed');
  assert.equal(store.getView().tree, null);
  store.press(LOCAL_RETRY, 'press');
  assert.deepEqual(sent, []);
});
