/** The transport against a fake socket, a fake clock and a storage stub. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EffectOutcome } from '../src/bridge';
import type { CompanionJoin, Dict } from '../src/codec';
import { Transport, type TransportSink } from '../src/transport';
import type { WireNode } from '../src/tree';
import { FakeClock, FakeSocket, MemoryStorage } from './helpers';

const TREE: WireNode = {
  id: 'modal',
  t: 'modal',
  p: { open: false },
  c: [{ id: 'b', t: 'button', p: { text: 'Go', variant: 'main', on: { press: 'spinner' } } }],
};

function setup(
  opts: {
    storage?: MemoryStorage;
    effect?: (eid: string) => Promise<EffectOutcome>;
    rand?: number;
    companion?: CompanionJoin;
    renewCompanion?: () => Promise<CompanionJoin | null>;
  } = {},
) {
  const sockets: FakeSocket[] = [];
  const clock = new FakeClock(opts.rand ?? 0.5);
  const storage = opts.storage ?? new MemoryStorage();
  const events: Array<[string, ...unknown[]]> = [];
  const trees: WireNode[] = [];
  const cancelled: string[] = [];
  const performed: unknown[][] = [];
  const sink: TransportSink = {
    tree: (tree, v) => {
      trees.push(tree);
      events.push(['tree', v]);
    },
    intentAck: (iid, status, error) => events.push(['ack', iid, status, error]),
    hostEvent: (kind, data) => events.push(['host', kind, data]),
    theme: (mode, vars) => events.push(['theme', mode, vars]),
    problem: (code, message, final) => events.push(['problem', code, message, final]),
  };
  const transport = new Transport({
    url: 'ws://engine/ws?project=demo',
    projectId: 'demo',
    join: () => ({ env: { mobile: false }, opts: { networks: ['eip155:1'] }, wallets: [] }),
    sink,
    effects: {
      run: (eid, work) => {
        work();
        return opts.effect?.(eid) ?? Promise.resolve({ ok: true, result: ['0xabc'] });
      },
      cancel: (eid) => cancelled.push(eid),
      eip1193: async (req) => performed.push(['eip1193', req]),
      solana: async (req) => performed.push(['solana', req]),
      clipboard: async (req) => performed.push(['clipboard', req]),
      openUrl: (req) => performed.push(['open_url', req]),
      discover: () => void performed.push(['discover']),
    },
    socket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    storage,
    clock,
    companion: opts.companion,
    renewCompanion: opts.renewCompanion,
  });
  const current = () => sockets[sockets.length - 1] as FakeSocket;
  /** Connect, open, and have the server welcome the socket. */
  const join = (resumed = false, a = 0) => {
    if (!transport['socket']) transport.connect();
    current().open();
    current().deliver({ t: 'joined', s: 0, a, session: 's1', resume: 's1.9.sig', resumed });
  };
  return { transport, sockets, current, clock, storage, events, trees, cancelled, performed, join };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

test('join is the first frame, with the envelope and the protocol fields', () => {
  const { current, join } = setup();
  join();
  const socket = current();
  assert.equal(socket.binaryType, 'arraybuffer');
  assert.equal(socket.url, 'ws://engine/ws?project=demo');
  assert.deepEqual(socket.sent[0], {
    t: 'join', s: 1, a: 0, project: 'demo', env: { mobile: false }, opts: { networks: ['eip155:1'] }, wallets: [],
  });
  assert.deepEqual(Object.keys(socket.sent[0] ?? {}), ['t', 's', 'a', 'project', 'env', 'opts', 'wallets']);
});

test('a bare ack goes out 1 s after receiving when nothing else was sent', () => {
  const { current, clock, join, trees } = setup();
  join();
  current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  assert.deepEqual(trees, [TREE]);
  clock.advance(999);
  assert.equal(current().framesOf('ack').length, 0);
  clock.advance(1);
  assert.deepEqual(current().framesOf('ack'), [{ t: 'ack', s: 0, a: 1 }]);
  clock.advance(5000);
  assert.equal(current().framesOf('ack').length, 1, 'nothing new to acknowledge');
});

test('a frame sent within the second carries the ack instead', () => {
  const { transport, current, clock, join } = setup();
  join();
  current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  clock.advance(300);
  transport.sendIntent('b', 'press');
  clock.advance(2000);
  assert.equal(current().framesOf('ack').length, 0);
  assert.equal(current().framesOf('intent')[0]?.a, 1);
});

test('a patch on another base sends resync and waits for a snapshot', () => {
  const { current, join, trees } = setup();
  join();
  const socket = current();
  socket.deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  socket.deliver({ t: 'patch', s: 2, a: 1, base: 5, v: 6, ops: [[3, 'modal', { open: true }]] });
  assert.deepEqual(socket.framesOf('resync'), [{ t: 'resync', s: 2, a: 1, v: 1 }]);
  // Patches are ignored until the snapshot comes, even one that would fit.
  socket.deliver({ t: 'patch', s: 3, a: 2, base: 1, v: 2, ops: [[3, 'modal', { open: true }]] });
  assert.equal(trees.length, 1);
  socket.deliver({ t: 'snapshot', s: 4, a: 2, v: 7, tree: TREE });
  socket.deliver({ t: 'patch', s: 5, a: 2, base: 7, v: 8, ops: [[3, 'modal', { open: true }]] });
  assert.equal(trees.length, 3);
  assert.equal(trees[2]?.p?.open, true);
  assert.equal(TREE.p?.open, false, 'the held tree is not mutated');
});

test('a patch that does not fit the tree (unknown id) sends resync', () => {
  const { current, join } = setup();
  join();
  current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  current().deliver({ t: 'patch', s: 2, a: 1, base: 1, v: 2, ops: [[1, 'nope']] });
  assert.equal(current().framesOf('resync').length, 1);
});

test('an unacknowledged intent is retransmitted after a reconnect with the same iid', () => {
  const { transport, sockets, current, clock, join, events } = setup();
  join();
  current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  const iid = transport.sendIntent('b', 'press', {});
  assert.ok(iid.length > 0 && iid.length <= 64);
  const first = current().framesOf('intent')[0];
  // The server even processed it (a = 2) but its intent_ack was lost with the socket.
  current().deliver({ t: 'ack', s: 0, a: 2 });
  current().drop();
  clock.advance(250);
  assert.equal(sockets.length, 2);
  join(true, 2);
  const again = current().framesOf('intent');
  assert.equal(again.length, 1);
  assert.equal(again[0]?.iid, iid);
  assert.deepEqual({ ...again[0], s: 0, a: 0 }, { ...first, s: 0, a: 0 });
  assert.ok((again[0]?.s as number) > (first?.s as number), 'a fresh sequence number');
  current().deliver({ t: 'intent_ack', s: 2, a: 4, iid, status: 'ok' });
  assert.deepEqual(events.at(-1), ['ack', iid, 'ok', undefined]);
  current().drop();
  clock.advance(250);
  join(true, 4);
  assert.equal(current().framesOf('intent').length, 0, 'acknowledged: not sent again');
});

test('the rejoin carries the resume token and the last processed server seq', () => {
  const { current, clock, join, storage } = setup();
  join();
  current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  current().deliver({ t: 'host_event', s: 2, a: 1, kind: 'state', data: { open: false } });
  assert.equal(storage.getItem('modalcore:demo:resume'), 's1.9.sig');
  assert.equal(storage.getItem('modalcore:demo:last'), '2');
  current().drop();
  clock.advance(250);
  current().open();
  const rejoin = current().sent[0];
  assert.equal(rejoin?.t, 'join');
  assert.equal(rejoin?.resume, 's1.9.sig');
  assert.equal(rejoin?.last, 2);
  assert.equal(rejoin?.s, 2, 'client numbering continues across sockets');
});

test('server frames already processed (s <= last) are ignored', () => {
  const { current, join, events } = setup();
  join();
  current().deliver({ t: 'host_event', s: 1, a: 1, kind: 'state', data: { n: 1 } });
  current().deliver({ t: 'host_event', s: 1, a: 1, kind: 'state', data: { n: 1 } });
  current().deliver({ t: 'host_event', s: 2, a: 1, kind: 'state', data: { n: 2 } });
  assert.deepEqual(events.filter((e) => e[0] === 'host').map((e) => (e[2] as Dict).n), [1, 2]);
});

test('a reloaded page resumes from localStorage: token, and numbering, no last without a tree', () => {
  const storage = new MemoryStorage();
  const first = setup({ storage });
  first.join();
  first.current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  first.transport.sendIntent('b', 'press');
  first.current().drop(1001); // the page goes away (a reload, not destroy())
  assert.equal(storage.getItem('modalcore:demo:seq'), '2');
  const second = setup({ storage });
  second.transport.connect();
  second.current().open();
  const join = second.current().sent[0];
  assert.equal(join?.resume, 's1.9.sig');
  assert.equal(join?.s, 3);
  assert.equal('last' in (join ?? {}), false, 'no tree held: ask for a snapshot, not a replay');
});

test('destroy() sends leave on a joined socket, closes it and forgets the resume token', () => {
  const { transport, current, clock, join, storage, sockets } = setup();
  join();
  current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  assert.equal(storage.getItem('modalcore:demo:resume'), 's1.9.sig');
  transport.destroy();
  const socket = current();
  assert.deepEqual(socket.sent.at(-1), { t: 'leave', s: 2, a: 1 });
  assert.equal(socket.closedWith, 1000);
  assert.equal(storage.getItem('modalcore:demo:resume'), null);
  assert.equal(storage.getItem('modalcore:demo:last'), null);
  transport.destroy();
  assert.equal(socket.framesOf('leave').length, 1, 'once');
  clock.advance(20_000);
  transport.connect();
  assert.equal(sockets.length, 1, 'no reconnect after destroy');
});

test('destroy() before the socket opened sends nothing (there is no session yet)', () => {
  const { transport, current, storage } = setup();
  storage.setItem('modalcore:demo:resume', 'old.token');
  transport.connect();
  transport.destroy();
  assert.deepEqual(current().sent, []);
  assert.equal(storage.getItem('modalcore:demo:resume'), null);
});

test('reconnect backoff doubles from 250 ms to 8 s with ±30 % jitter', () => {
  for (const [rand, factor] of [[0.5, 1], [0, 0.7], [1, 1.3]] as const) {
    const { transport, current, clock } = setup({ rand });
    transport.connect();
    const delays: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      current().drop();
      delays.push(clock.delays.at(-1) as number);
      clock.advance(20_000);
    }
    const expected = [250, 500, 1000, 2000, 4000, 8000, 8000].map((d) => d * factor);
    delays.forEach((d, i) => assert.ok(Math.abs(d - (expected[i] as number)) < 1e-6, `${d} vs ${expected[i]}`));
  }
});

test('effects are run and answered; a cancelled one is not answered', async () => {
  let release: (o: EffectOutcome) => void = () => undefined;
  const { current, join, cancelled } = setup({
    effect: (eid) =>
      eid === 'e2'
        ? new Promise((resolve) => (release = resolve))
        : Promise.resolve({ ok: false, error: { code: 4001, message: 'User rejected the request.' } }),
  });
  join();
  current().deliver({ t: 'effect', s: 1, a: 1, eid: 'e1', kind: 'eip1193', timeout: 1000, req: { connector: 'x', method: 'eth_accounts', params: [] } });
  current().deliver({ t: 'effect', s: 2, a: 1, eid: 'e2', kind: 'eip1193', timeout: 1000, req: {} });
  await flush();
  assert.deepEqual(current().framesOf('effect_result'), [
    { t: 'effect_result', s: 2, a: 2, eid: 'e1', ok: false, error: { code: 4001, message: 'User rejected the request.' } },
  ]);
  current().deliver({ t: 'effect_cancel', s: 3, a: 2, eid: 'e2' });
  assert.deepEqual(cancelled, ['e2']);
  release({ ok: true, result: null });
  await flush();
  assert.equal(current().framesOf('effect_result').length, 1);
});

test('one table routes an effect frame by its kind straight to its performer; an unknown kind is malformed', async () => {
  const { current, join, performed, events } = setup();
  join();
  const kinds = ['eip1193', 'solana', 'clipboard', 'open_url', 'discover'];
  kinds.forEach((kind, i) =>
    current().deliver({ t: 'effect', s: i + 1, a: 1, eid: `e${i}`, kind, timeout: 1000, req: { n: i } }),
  );
  await flush();
  assert.deepEqual(performed, [
    ['eip1193', { n: 0 }],
    ['solana', { n: 1 }],
    ['clipboard', { n: 2 }],
    ['open_url', { n: 3 }],
    ['discover'],
  ]);
  assert.deepEqual(current().framesOf('effect_result').map((f) => f.eid), ['e0', 'e1', 'e2', 'e3', 'e4']);
  // the socket edge refuses a kind the protocol does not list: nothing runs, nothing answers
  current().deliver({ t: 'effect', s: 6, a: 1, eid: 'e9', kind: 'teleport', timeout: 1000, req: {} });
  await flush();
  assert.equal(performed.length, kinds.length);
  assert.equal(current().framesOf('effect_result').length, kinds.length);
  assert.equal(events.filter((e) => e[0] === 'problem' && e[1] === 'malformed').length, 1);
});

test('a new session drops intents on old nodes (stale) and numbers server frames afresh', () => {
  const { transport, current, clock, join, events } = setup();
  join();
  current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  current().deliver({ t: 'host_event', s: 2, a: 1, kind: 'state', data: {} });
  current().drop();
  const pressed = transport.sendIntent('b', 'press');
  const opened = transport.sendIntent('host', 'open');
  clock.advance(250);
  join(false, 0);
  assert.deepEqual(events.find((e) => e[0] === 'ack'), ['ack', pressed, 'stale', 'session ended']);
  assert.deepEqual(current().framesOf('intent').map((f) => f.iid), [opened]);
  current().deliver({ t: 'snapshot', s: 1, a: 3, v: 1, tree: TREE });
  assert.equal(events.filter((e) => e[0] === 'tree').length, 2, 's = 1 of the new session is processed');
});

test('goodbye ends the session: no reconnect until the visitor acts again', () => {
  const { transport, sockets, current, clock, join, storage, events } = setup();
  join();
  current().deliver({ t: 'goodbye', s: 1, a: 1, code: 'expired', message: 'The session ended' });
  assert.deepEqual(events.at(-1), ['problem', 'expired', 'The session ended', true]);
  assert.equal(storage.getItem('modalcore:demo:resume'), null);
  current().drop(1000);
  clock.advance(60_000);
  assert.equal(sockets.length, 1);
  transport.sendIntent('host', 'open');
  assert.equal(sockets.length, 2);
  join();
  assert.equal(current().framesOf('intent').length, 1);
});

test('close codes 4001/4002 are final', () => {
  const { transport, sockets, current, clock, events } = setup();
  transport.connect();
  current().drop(4001);
  clock.advance(60_000);
  assert.equal(sockets.length, 1);
  assert.equal(events.at(-1)?.[1], 'bad_origin');
});

test('frames that are not server frames are reported and skipped', () => {
  const { current, join, events } = setup();
  join();
  current().deliver({ t: 'nonsense', s: 1, a: 0 });
  current().onmessage?.({ data: 'text frame' });
  assert.equal(events.filter((e) => e[0] === 'problem').length, 2);
});

test('a socket that cannot even be created is retried with backoff', () => {
  const clock = new FakeClock();
  let attempts = 0;
  const transport = new Transport({
    url: 'ws://engine/ws?project=demo',
    projectId: 'demo',
    join: () => ({ env: {}, opts: {}, wallets: [] }),
    sink: { tree() {}, intentAck() {}, hostEvent() {}, theme() {}, problem() {} },
    effects: {
      run: async () => ({ ok: true, result: null }),
      cancel() {},
      eip1193: async () => null,
      solana: async () => null,
      clipboard: async () => null,
      openUrl: () => null,
      discover() {},
    },
    socket: () => {
      attempts += 1;
      throw new Error('blocked');
    },
    storage: null,
    clock,
  });
  transport.connect();
  clock.advance(250);
  clock.advance(500);
  assert.equal(attempts, 3);
});

// The linked phone's page (issue 44, PROTOCOL.md "Companion"): it joins its session signed, never
// with a resume token, and a refused companion join is final.
const COMPANION: CompanionJoin = { session: 's1', public_key: 'MFkw', nonce: '1.n.m', signature: 'Qk' };

test('a companion join carries the signed companion and never a resume token, on every socket', () => {
  const storage = new MemoryStorage();
  storage.setItem('modalcore:demo:resume', 'other.1.sig');
  const { current, clock, join } = setup({ storage, companion: COMPANION });
  join();
  current().deliver({ t: 'snapshot', s: 1, a: 1, v: 1, tree: TREE });
  const first = current().sent[0];
  assert.deepEqual(first?.companion, COMPANION);
  assert.equal(first?.resume, undefined);
  assert.deepEqual(Object.keys(first ?? {}), ['t', 's', 'a', 'project', 'companion', 'env', 'opts', 'wallets']);
  current().drop();
  clock.advance(250);
  current().open();
  const again = current().sent[0];
  assert.deepEqual(again?.companion, COMPANION);
  assert.equal(again?.resume, undefined);
  assert.equal(again?.last, undefined);
});

test('a companion nonce joins once: each later socket joins with a fresh one the page signed', async () => {
  const fresh: CompanionJoin[] = [{ ...COMPANION, nonce: '2.n.m', signature: 'Q2' }];
  let asked = 0;
  const renewCompanion = () => {
    asked += 1;
    return Promise.resolve(fresh.shift() ?? null);
  };
  const { sockets, current, clock, join, events } = setup({ companion: COMPANION, renewCompanion });
  join();
  assert.deepEqual(current().sent[0]?.companion, COMPANION);
  assert.equal(asked, 0, 'the first socket uses the join the page gave');
  current().drop();
  clock.advance(250);
  await flush();
  assert.equal(asked, 1);
  current().open();
  assert.deepEqual(current().sent[0]?.companion, { ...COMPANION, nonce: '2.n.m', signature: 'Q2' });
  // no fresh join to be had (the page's nonce refused): no socket opened with a spent one
  const opened = sockets.length;
  current().drop();
  clock.advance(1000); // the backoff grew: this socket never got its `joined`
  await flush();
  assert.equal(asked, 2);
  assert.equal(sockets.length, opened);
  assert.equal(events.at(-1)?.[1], 'companion_renew');
});

test('close code 4006 (a refused companion join) is final', () => {
  const { transport, sockets, current, clock, events } = setup({ companion: COMPANION });
  transport.connect();
  current().drop(4006);
  clock.advance(60_000);
  assert.equal(sockets.length, 1);
  assert.equal(events.at(-1)?.[1], 'companion_refused');
});
