/** The local msgpack codec, beyond the shared vectors: checked against @msgpack/msgpack. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decode as libDecode, encode as libEncode } from '@msgpack/msgpack';
import { decodeValue, encodeValue } from '../src/codec';
import { hex } from './helpers';

const SAMPLES: unknown[] = [
  0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER,
  -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 40), Number.MIN_SAFE_INTEGER,
  0.5, -1.25, 1e300, Number.NaN, Number.POSITIVE_INFINITY,
  '', 'a', 'x'.repeat(31), 'x'.repeat(32), 'x'.repeat(255), 'x'.repeat(256), 'y'.repeat(70_000), 'Ünïcødé ✓ 🦊',
  null, true, false, [], {}, new Uint8Array([1, 2, 3]), new Uint8Array(300), new Uint8Array(70_000),
  Array.from({ length: 16 }, (_, i) => i), Array.from({ length: 70_000 }, (_, i) => i % 7),
  Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, i])),
  Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, i % 3])),
  { t: 'patch', s: 3, a: 2, base: 1, v: 2, ops: [[3, 'n', { gone: null, text: 'x', n: 1.5 }]] },
];

test('encodes as @msgpack/msgpack does, and each decodes the other', () => {
  for (const value of SAMPLES) {
    const mine = encodeValue(value);
    assert.equal(hex(mine), hex(libEncode(value)), `bytes of ${String(value).slice(0, 40)}`);
    assert.deepEqual(libDecode(mine), value);
    assert.deepEqual(decodeValue(libEncode(value)), value);
  }
});

test('integers past 2^53 stay integers (uint64 / int64), as Python writes them', () => {
  assert.equal(hex(encodeValue(2 ** 53)), 'cf0020000000000000');
  assert.equal(hex(encodeValue(2n ** 63n)), 'cf8000000000000000');
  assert.equal(hex(encodeValue(-(2 ** 53))), 'd3ffe0000000000000');
  assert.equal(decodeValue(Buffer.from('d3ffe0000000000000', 'hex')), -(2 ** 53));
});

test('undefined map values are omitted; key order is kept', () => {
  assert.equal(hex(encodeValue({ b: 1, a: undefined, c: 2 })), '82a16201a16302');
});

test('refuses truncated, trailing, unsupported and too deep input', () => {
  for (const bad of ['92 01', '01 02', 'c1', 'd4 00 00', 'a3 61 62']) {
    assert.throws(() => decodeValue(Buffer.from(bad.replace(/ /g, ''), 'hex')), /msgpack/);
  }
  let deep: unknown = [];
  for (let i = 0; i < 200; i += 1) deep = [deep];
  assert.throws(() => encodeValue(deep), /too deep/);
  assert.throws(() => decodeValue(libEncode(deep, { maxDepth: 500 })), /too deep/);
});

test('a __proto__ key is data, not a prototype', () => {
  const value = decodeValue(Buffer.from('81a95f5f70726f746f5f5f81a17801', 'hex')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(value), ['__proto__']);
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});
