/** Pieces of the host API that need no browser. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeClientFrame } from '../src/codec';
import { fitWallets } from '../src/host';

test('join keeps under the 64 KiB frame limit however many big icons are announced', () => {
  const wallets = Array.from({ length: 64 }, (_, i) => ({
    uuid: `uuid-${i}`,
    name: `Wallet ${i}`,
    icon: `data:image/png;base64,${'A'.repeat(16_000)}`,
    rdns: `com.wallet${i}`,
  }));
  const fitted = fitWallets(wallets);
  assert.equal(fitted.length, 64);
  assert.equal(fitted[0]?.icon, wallets[0]?.icon);
  assert.equal(fitted[63]?.icon, '');
  const join = encodeClientFrame({ t: 'join', project: 'demo', env: {}, opts: {}, wallets: fitted }, 1, 0);
  assert.ok(join.length < 64 * 1024, `${join.length} bytes`);
});
