/** The shared vectors (protocol/vectors/): the same files pin the Python side. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ClientBody, FrameError, type ServerFrame, decodeServerFrame, decodeValue, encodeClientFrame, encodeValue } from '../src/codec';
import { SERVER_FIELDS } from '../src/frames.gen';
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

// The frame types and checks are generated from the engine's typed frames (frames.gen.ts):
// every kind they list has a shared vector, and a field outside its documented values is refused.
test('every generated server frame kind has a vector', () => {
  const kinds = new Set(codec.filter((v) => v.name.startsWith('server/')).map((v) => (v.value as { t: string }).t));
  assert.deepEqual([...kinds].sort(), Object.keys(SERVER_FIELDS).sort());
});

test('server frame check refuses an intent_ack status the protocol does not list', () => {
  const ack = { t: 'intent_ack', s: 3, a: 1, iid: 'i1', status: 'fine' };
  assert.throws(() => decodeServerFrame(encodeValue(ack)), FrameError);
  const frame: ServerFrame = decodeServerFrame(encodeValue({ ...ack, status: 'stale' }));
  assert.equal(frame.t === 'intent_ack' ? frame.status : null, 'stale');
});
