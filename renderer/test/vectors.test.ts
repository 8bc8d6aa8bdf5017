/** The shared vectors (protocol/vectors/): the same files pin the Python side. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ClientBody, FrameError, decodeServerFrame, decodeValue, encodeClientFrame, encodeValue } from '../src/codec';
import { applyOps } from '../src/patch';
import type { WireNode } from '../src/tree';
import { hex, readVectors } from './helpers';

type CodecVector = { name: string; value: unknown; hex: string };
type DiffVector = { name: string; a: WireNode; b: WireNode; ops: unknown[] };

const codec = readVectors<CodecVector[]>('codec.json');
const diff = readVectors<DiffVector[]>('diff.json');

for (const vector of codec) {
  test(`codec decode: ${vector.name}`, () => {
    assert.deepEqual(decodeValue(Buffer.from(vector.hex, 'hex')), vector.value);
  });
  test(`codec encode: ${vector.name}`, () => {
    assert.equal(hex(encodeValue(vector.value)), vector.hex);
  });
}

for (const vector of diff) {
  test(`diff apply: ${vector.name}`, () => {
    const before = JSON.stringify(vector.a);
    assert.deepEqual(applyOps(vector.a, vector.ops), vector.b);
    assert.equal(JSON.stringify(vector.a), before, 'the old tree is left as it was');
  });
}

// Frames built by the transport's own builder come out byte for byte as the vectors say.
for (const vector of codec.filter((v) => v.name.startsWith('client/'))) {
  test(`client frame builder: ${vector.name}`, () => {
    const { t, s, a, ...fields } = vector.value as Record<string, unknown>;
    // Feed the fields in reverse to prove the builder imposes the protocol's key order.
    const shuffled = Object.fromEntries(Object.entries({ t, ...fields }).reverse()) as unknown as ClientBody;
    assert.equal(hex(encodeClientFrame(shuffled, s as number, a as number)), vector.hex);
  });
}

for (const vector of codec.filter((v) => v.name.startsWith('server/'))) {
  test(`server frame check: ${vector.name}`, () => {
    assert.deepEqual(decodeServerFrame(Buffer.from(vector.hex, 'hex')), vector.value);
  });
}

test('server frame check refuses what is not a frame', () => {
  for (const value of [[1, 2], { t: 'nope', s: 1, a: 0 }, { t: 'patch', s: 1, a: 0, base: 'x', v: 2, ops: [] }]) {
    assert.throws(() => decodeServerFrame(encodeValue(value)), FrameError);
  }
});
