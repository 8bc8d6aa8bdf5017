// The node contract seen from the renderer (issue 12 item 7): every component reads only props
// the registry lists for its node type (protocol/nodes.schema.json, generated from
// modalcore/wire/registry.py), and every prop the registry lists is read by some component.
// Each node type is drawn with every one of its props set, through proxies that record reads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { renderToStaticMarkup } from 'react-dom/server';
import { buildComponentsForTest } from './build-components-test.mjs';

const C = await import(await buildComponentsForTest());
const schema = JSON.parse(readFileSync(new URL('../../protocol/nodes.schema.json', import.meta.url), 'utf8'));
const COMMON = ['on', 'hidden', 'label', 'busy', 'popup']; // registry.COMMON: any node may carry them
const TYPES = Object.keys(schema.$defs).filter((t) => t !== 'node');
const propsOf = (t) => Object.keys(schema.$defs[t].properties.p.properties);

const SAMPLES = {
  string: 'x', integer: 3, boolean: true, array: ['A', 'B'], object: { press: null, change: null, select: null },
};
const SPECIAL = { href: 'https://example.com', src: 'https://example.com/i.png', image: 'https://example.com/i.png',
  busy: false, variant: 'main', dir: 'row', kind: 'text', data: 'wc:abc', address: '0x0000000000000000000000000000000000000001' };

/** A node of type `t` with every prop set, whose reads land in `reads[t]`. */
function sample(t, id, reads, children, overrides = {}) {
  const spec = schema.$defs[t].properties.p.properties;
  const p = {};
  for (const [key, prop] of Object.entries(spec)) {
    if (key === 'hidden') continue; // a hidden node draws nothing: 'hidden' is read by renderNode
    p[key] = SPECIAL[key] ?? SAMPLES[prop.type];
  }
  Object.assign(p, overrides);
  for (const key of Object.keys(p)) if (p[key] === undefined) delete p[key];
  const seen = (reads[t] ??= new Set());
  const traced = new Proxy(p, {
    get(target, key, receiver) {
      if (typeof key === 'string') seen.add(key);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === 'string') seen.add(key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      if (typeof key === 'string') seen.add(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
  });
  return { id, t, p: traced, ...(children ? { c: children } : {}) };
}

function ctxOf(pending = new Map()) {
  return { send: () => undefined, pending, themeMode: 'dark', themeVars: {} };
}

/** Draws every node type inside a modal, in the states that read different props: no pending
 * hint, every node busy, the back hint showing the hidden view, optional props left out
 * (`bare`: a prop read only when another is absent); embedded or not. */
const BARE = { error: undefined, href: undefined, image: undefined, icon: undefined, text: undefined };
function drawAll() {
  const reads = {};
  for (const state of ['plain', 'busy', 'back', 'bare']) {
    for (const variant of ['main', 'title', 'amount']) {
      const leaves = TYPES.filter((t) => !['modal', 'view', 'header', 'snackbar'].includes(t))
        .map((t, i) => sample(t, `n${i}`, reads, t === 'stack' || t === 'group' ? [] : undefined,
          { ...(t === 'text' || t === 'button' ? { variant } : {}), ...(state === 'bare' ? BARE : {}) }));
      const back = { press: { back: 'view/Back' } };
      const tree = sample('modal', 'modal', reads, [
        sample('header', 'header', reads, [sample('button', 'header/back', reads, undefined, { on: back })]),
        sample('view', 'view/Back', reads, [], { hidden: true }),
        sample('view', 'view/Now', reads, leaves),
        sample('snackbar', 'snackbar', reads),
      ], { embedded: variant === 'title' });
      const pending = new Map(
        state === 'busy' ? leaves.map((n) => [n.id, 'busy']) : state === 'back' ? [['header/back', back.press]] : [],
      );
      renderToStaticMarkup(C.renderNode(tree, ctxOf(pending)));
    }
  }
  return reads;
}

test('node props: components read only props the registry lists for their type', () => {
  const reads = drawAll();
  const unknown = [];
  for (const [t, keys] of Object.entries(reads)) {
    const allowed = new Set([...propsOf(t), ...COMMON]);
    for (const key of keys) if (!allowed.has(key)) unknown.push(`${t}.${key}`);
  }
  assert.deepEqual(unknown.sort(), [], 'a component reads a prop the schema lacks: add it to modalcore/wire/registry.py');
});

test('node props: every prop the registry lists is read by a component', () => {
  const reads = drawAll();
  const unread = [];
  for (const t of TYPES) {
    for (const key of propsOf(t)) {
      if (COMMON.includes(key)) continue;
      if (!reads[t]?.has(key)) unread.push(`${t}.${key}`);
    }
  }
  assert.deepEqual(unread.sort(), [], 'a prop no component reads: drop it from the engine and the registry, or draw it');
});
