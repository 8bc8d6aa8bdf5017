/** Pieces of the host API that need no browser. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeClientFrame } from '../src/codec';
import { fitWallets, refusalAdvice } from '../src/host';

test('join keeps under the 64 KiB frame limit however many big icons are announced', () => {
  const wallets = Array.from({ length: 64 }, (_, i) => ({
    uuid: `uuid-${i}`,
    name: `Wallet ${i}`,
    icon: `data:image/png;base64,${'A'.repeat(16_000)}`,
    rdns: `com.wallet${i}`,
  }));
  const fitted = fitWallets(wallets);
  assert.equal(fitted.length, 32); // PROTOCOL.md "Bounds": at most 32 wallets in a session
  assert.equal(fitted[0]?.icon, wallets[0]?.icon);
  assert.equal(fitted[31]?.icon, '');
  const join = encodeClientFrame({ t: 'join', project: 'demo', env: {}, opts: {}, wallets: fitted }, 1, 0);
  assert.ok(join.length < 64 * 1024, `${join.length} bytes`);
});

test('join leaves out icons longer than the engine keeps (PROTOCOL.md "Bounds")', () => {
  const big = { uuid: 'big', name: 'Big', icon: `data:image/png;base64,${'A'.repeat(16_385)}`, rdns: 'com.big' };
  const small = { uuid: 'small', name: 'Small', icon: 'data:image/svg+xml,x', rdns: 'com.small' };
  const fitted = fitWallets([big, small]);
  assert.equal(fitted[0]?.icon, '');
  assert.equal(fitted[1]?.icon, small.icon);
});

test('join.wallets keeps a Wallet Standard wallet\'s namespaces (PROTOCOL.md, join.wallets)', () => {
  const fitted = fitWallets([
    { uuid: 'a', name: 'EVM', icon: '', rdns: 'a' },
    { uuid: 'wallet-standard:S', name: 'S', icon: '', rdns: '', namespaces: ['solana'] },
  ]);
  assert.deepEqual(fitted, [
    { uuid: 'a', name: 'EVM', icon: '', rdns: 'a' },
    { uuid: 'wallet-standard:S', name: 'S', icon: '', rdns: '', namespaces: ['solana'] },
  ]);
});

test('a refused origin is explained in the console: which origin, which project, how to allow it', () => {
  const advice = refusalAdvice('bad_origin', 'connection refused (4001)', 'demo', 'http://127.0.0.1:8700');
  assert.match(advice, /refused this page's origin .* for project 'demo'/);
  assert.match(advice, /projects\.demo\.origins/);
  assert.match(advice, /make run ALLOW_ORIGIN=/);
  assert.match(refusalAdvice('invalid_options', 'networks: too many', 'demo', undefined), /invalid_options: networks: too many/);
});
