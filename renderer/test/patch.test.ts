/** Patch application beyond the shared vectors: sharing, and ops that do not fit. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PatchError, applyOps } from '../src/patch';
import type { WireNode } from '../src/tree';

const TREE: WireNode = {
  id: 'r',
  t: 'modal',
  c: [
    { id: 'a', t: 'stack', c: [{ id: 'a1', t: 'text', p: { text: '1' } }] },
    { id: 'b', t: 'stack', c: [{ id: 'b1', t: 'text', p: { text: '2' } }] },
  ],
};

test('untouched subtrees keep their identity; touched paths are copies', () => {
  const next = applyOps(TREE, [[3, 'a1', { text: 'one' }]]);
  assert.notEqual(next, TREE);
  assert.notEqual(next.c?.[0], TREE.c?.[0]);
  assert.equal(next.c?.[1], TREE.c?.[1]);
  assert.equal(TREE.c?.[0]?.c?.[0]?.p?.text, '1');
  assert.equal(next.c?.[0]?.c?.[0]?.p?.text, 'one');
});

test('several ops on one path copy it once and see each other', () => {
  const next = applyOps(TREE, [
    [3, 'a1', { text: 'x' }],
    [0, 'a', 1, { id: 'a2', t: 'text' }],
    [2, 'a', 'a2', 0],
    [3, 'a2', { text: 'y' }],
    [4, 'b', { id: 'b', t: 'spinner' }],
  ]);
  assert.deepEqual(next, {
    id: 'r',
    t: 'modal',
    c: [
      { id: 'a', t: 'stack', c: [{ id: 'a2', t: 'text', p: { text: 'y' } }, { id: 'a1', t: 'text', p: { text: 'x' } }] },
      { id: 'b', t: 'spinner' },
    ],
  });
});

test('ops that do not fit the tree throw PatchError', () => {
  const bad: unknown[][] = [
    [[1, 'nope']],
    [[1, 'r']],
    [[0, 'a', 5, { id: 'z', t: 'text' }]],
    [[0, 'a', 0, { id: 'b1', t: 'text' }]],
    [[2, 'b', 'a1', 0]],
    [[3, 'a', 'notamap']],
    [[4, 'a', { id: 1 }]],
    [[9, 'a']],
    ['not-an-op'],
  ];
  for (const ops of bad) assert.throws(() => applyOps(TREE, ops), PatchError, JSON.stringify(ops));
});

test('a removed subtree frees its ids for later inserts', () => {
  const next = applyOps(TREE, [[1, 'a'], [0, 'b', 0, { id: 'a1', t: 'text' }]]);
  assert.deepEqual(next.c?.map((n) => n.id), ['b']);
  assert.deepEqual(next.c?.[0]?.c?.map((n) => n.id), ['a1', 'b1']);
});
