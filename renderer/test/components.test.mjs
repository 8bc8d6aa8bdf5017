// Logic-level tests of the components: the QR matrix the engine sends (read back, drawn),
// the avatar gradient's purity, and server-side rendering of every node type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { buildComponentsForTest } from './build-components-test.mjs';

const C = await import(await buildComponentsForTest());

const at = (q, x, y) => q.modules[y * q.size + x];

// ---------------------------------------------------------------- QR
// The engine encodes QR codes (segno) and sends the modules; the renderer only draws them.

// A real matrix ("hello", level M, mask 0, version 1, from python-qrcode 8.2) as a fixture.
const HELLO_M0 = [
  '111111100110001111111', '100000101100001000001', '101110100101101011101', '101110100011001011101',
  '101110101100101011101', '100000100000101000001', '111111101010101111111', '000000000011100000000',
  '101010100101000010010', '001011000010001000011', '010100101110100011111', '110010000000001000010',
  '011010110010101010000', '000000001111010100111', '111111100011011100111', '100000100011110110000',
  '101110101011011100011', '101110100100001100110', '101110101110100010101', '100000100100001010010',
  '111111101110101100011',
];
const toBits = (rows) => {
  const flat = rows.join('') + '0'.repeat((4 - ((rows.length * rows.length) % 4)) % 4);
  let hex = '';
  for (let i = 0; i < flat.length; i += 4) hex += parseInt(flat.slice(i, i + 4), 2).toString(16);
  return hex;
};

test('qr: the node\'s bits are read back into the engine\'s matrix', () => {
  const q = C.parseModules(21, toBits(HELLO_M0));
  assert.equal(q.size, 21);
  const rows = [];
  for (let y = 0; y < q.size; y++) rows.push(q.modules.slice(y * q.size, (y + 1) * q.size).map(Number).join(''));
  assert.deepEqual(rows, HELLO_M0);
});

test('qr: props that do not describe an n x n matrix draw nothing', () => {
  const bits = toBits(HELLO_M0);
  assert.equal(C.parseModules(22, bits), null);
  assert.equal(C.parseModules(21, bits.slice(1)), null);
  assert.equal(C.parseModules(21, bits.replace(/.$/, 'g')), null);
  assert.equal(C.parseModules(0, ''), null);
});

test('qr: svg paths skip the finder eyes and the logo area', () => {
  const q = C.parseModules(21, toBits(HELLO_M0));
  const plain = C.qrPaths(q, 0);
  const withLogo = C.qrPaths(q, 5);
  assert.ok(plain.dots.length > withLogo.dots.length);
  assert.equal((plain.eyes.match(/M/g) ?? []).length, 9);
});

// ---------------------------------------------------------------- avatar

test('avatar: gradient is a pure function of the address', () => {
  const a = '0x71C7656EC7ab88b098defB751B7401B5f6d8976F';
  const g = C.avatarGradient(a);
  assert.equal(C.avatarGradient(a), g);
  assert.equal(C.avatarGradient(a.toLowerCase()), g, 'case-insensitive');
  assert.notEqual(C.avatarGradient('0x0000000000000000000000000000000000000001'), g);
  assert.match(g, /^radial-gradient\(/);
});

// ---------------------------------------------------------------- rendering

const ctxOf = (pending = new Map(), mode = 'dark') => {
  const sent = [];
  return {
    sent,
    send: (id, act, args) => sent.push([id, act, args]),
    pending,
    themeMode: mode,
    themeVars: { '--w3m-accent': '#ff0000', '--w3m-color-mix-strength': '40', notAVar: 'x' },
  };
};
const n = (id, t, p, c) => ({ id, t, ...(p ? { p } : {}), ...(c ? { c } : {}) });

function tree(extra = {}, views) {
  return n('m', 'modal', { open: true, closable: true, on: { close: 'close' }, ...extra }, [
    n('h', 'header', { title: 'Connect Wallet' }, [
      n('h/back', 'button', { icon: 'back', variant: 'ghost', label: 'Back', on: { press: null } }),
      n('h/title', 'text', { text: 'Connect Wallet', variant: 'title' }),
      n('h/close', 'button', { icon: 'close', variant: 'ghost', label: 'Close', on: { press: 'close' } }),
    ]),
    ...(views ?? [
      n('v1', 'view', { name: 'Connect' }, [
        n('s', 'stack', { dir: 'col', gap: 8, on: { more: null } }, [
          n('w1', 'wallet-item', { name: 'MetaMask', image: 'https://x/m.png', tag: 'INSTALLED', on: { press: 'busy' } }),
          n('li', 'list-item', { title: 'All Wallets', icon: 'wallet', trailing: '420+', chevron: true, on: { press: null } }),
          n('ni', 'network-item', { name: 'Ethereum', active: true }),
          n('ti', 'token-item', { name: 'Ether', symbol: 'ETH', amount: '1.000', value: '$3,000.00' }),
          n('ai', 'activity-item', { title: 'Sent', subtitle: 'to 0x12…34', time: '2 min', amount: '-0.1 ETH', status: 'failed' }),
          n('g', 'group', { title: 'Popular' }, [n('g1', 'wallet-item', { name: 'Rainbow', image: '' })]),
        ]),
        n('in', 'input', { value: 'a@b.c', placeholder: 'Email', kind: 'email', error: 'Bad email', on: { change: null, submit: 'spinner' } }),
        n('otp', 'otp-input', { length: 6, value: '12' }),
        n('qr', 'qr', { n: 21, bits: toBits(HELLO_M0), size: 200, image: 'https://x/logo.png' }),
        n('tabs', 'tabs', { items: ['Tokens', 'NFTs', 'Activity'], active: 1, on: { select: null } }),
        n('b', 'button', { text: 'Continue', variant: 'main', on: { press: 'spinner' } }),
        n('sp', 'spinner', { size: 20 }),
        n('ln', 'link', { text: 'Learn more', href: 'https://example.com' }),
        n('cb', 'checkbox', { checked: true, text: 'I agree', on: { toggle: null } }),
        n('sep', 'separator', { text: 'or' }),
        n('av', 'avatar', { address: '0xabc', size: 64 }),
        n('ch', 'chip', { text: '0x12…34', icon: 'copy', on: { press: null } }),
        n('sk', 'skeleton', { w: 100, h: 12 }),
        n('im', 'image', { src: 'https://x/i.png', alt: 'Logo', size: 32 }),
        n('ic', 'icon', { name: 'info', tone: 'muted' }),
        n('tx', 'text', { text: 'Hello', variant: 'small', tone: 'muted' }),
        n('hid', 'text', { text: 'SECRET', hidden: true }),
        n('zz', 'no-such-type', {}),
      ]),
      n('v0', 'view', { name: 'Previous', hidden: true }, [n('t0', 'text', { text: 'PREVIOUS VIEW' })]),
    ]),
    n('al', 'alert', { title: 'Heads up', message: 'Something', variant: 'warning' }),
    n('sn', 'snackbar', { message: 'Copied', variant: 'success', open: true }),
  ]);
}

const draw = (t, ctx, extra = {}) => renderToStaticMarkup(createElement(C.ModalRoot, { tree: t, ctx, ...extra }));

test('render: an image path is on the engine (its icon route), a URL stays as it is', () => {
  const icons = [
    n('v1', 'view', { name: 'Account' }, [
      n('t1', 'token-item', { name: 'Ether', symbol: 'ETH', amount: '1', image: '/icons/token/ETH.svg?v=1' }),
      n('t2', 'token-item', { name: 'Demo', symbol: 'DEMO', amount: '1', image: 'https://cdn.example/d.svg' }),
    ]),
  ];
  const html = renderToStaticMarkup(createElement(C.EngineBase.Provider, { value: 'https://engine.example:8700/' },
    createElement(C.ModalRoot, { tree: tree({}, icons), ctx: ctxOf() })));
  assert.match(html, /src="https:\/\/engine\.example:8700\/icons\/token\/ETH\.svg\?v=1"/);
  assert.match(html, /src="https:\/\/cdn\.example\/d\.svg"/);
});

test('render: every node type draws; dialog semantics; theme', () => {
  const warns = [];
  const orig = console.warn;
  console.warn = (...a) => warns.push(a.join(' '));
  try {
    const html = draw(tree(), ctxOf());
    draw(tree(), ctxOf());
    assert.match(html, /role="dialog"/);
    assert.match(html, /aria-modal="true"/);
    assert.match(html, /aria-label="Connect Wallet"/);
    assert.match(html, /data-theme="dark"/);
    assert.match(html, /--w3m-accent:#ff0000/);
    assert.doesNotMatch(html, /notAVar/);
    assert.match(html, /--w3m-color-mix-strength:40%/, 'a bare number gets its unit');
    assert.match(html, /data-state="open"/);
    for (const cls of [
      'wm-header', 'wm-view', 'wm-stack', 'wm-wallet', 'wm-item', 'wm-net', 'wm-token', 'wm-activity', 'wm-group',
      'wm-input', 'wm-otp', 'wm-qr', 'wm-tabs', 'wm-btn', 'wm-spinner-node', 'wm-link', 'wm-check', 'wm-sep',
      'wm-avatar', 'wm-chip', 'wm-skel', 'wm-img', 'wm-icon-node', 'wm-text', 'wm-alert', 'wm-snack', 'wm-more',
    ]) {
      assert.match(html, new RegExp(`class="[^"]*\\b${cls}\\b`), cls);
    }
    assert.match(html, /role="status"/, 'snackbar is a polite status region');
    assert.match(html, /aria-live="polite"/);
    assert.match(html, /<img[^>]*alt=""[^>]*src="https:\/\/x\/m.png"|<img[^>]*src="https:\/\/x\/m.png"[^>]*alt=""/, 'a wallet row\'s mark is decorative: its name is the row\'s text');
    assert.doesNotMatch(html, /alt="MetaMask"/);
    assert.match(html, /wm-mono[^>]*aria-hidden="true"[^>]*>R</, 'an image without src falls back to a monogram (decorative beside the name)');
    assert.doesNotMatch(html, /SECRET/);
    assert.doesNotMatch(html, /PREVIOUS VIEW/);
    assert.match(html, /aria-invalid="true"/);
    assert.match(html, /Bad email/);
    assert.match(html, /aria-selected="true"[^>]*>NFTs/);
    assert.equal(warns.filter((w) => w.includes('no-such-type')).length, 1, 'unknown type warned once');
  } finally {
    console.warn = orig;
  }
});

test('render: a list row draws a count or a capitalised word as a tag, an amount as plain text', () => {
  const row = (id, trailing) => n(id, 'list-item', { title: id, trailing });
  const html = draw(tree({}, [n('v1', 'view', { name: 'SwapPreview' }, [
    row('wallets', '420+'), row('few', '7'), row('badge', 'QR CODE'), row('pay', '25 TUSD'), row('get', '12.459394 DEMO'),
    row('balance', '9,898.718'),
  ])]), ctxOf());
  assert.match(html, /wm-tag[^>]*>420\+</);
  assert.match(html, /wm-tag[^>]*>7</);
  assert.match(html, /wm-tag[^>]*>QR CODE</);
  // "You pay 25 TUSD" beside "You receive 12.459394 DEMO": the same kind of text, not one a badge
  for (const amount of ['25 TUSD', '12.459394 DEMO', '9,898.718']) {
    assert.match(html, new RegExp(`class="wm-trail">${amount}<`), amount);
  }
});

test('render: a choice button says whether it is the chosen one (aria-pressed); a plain button does not', () => {
  const html = draw(tree({}, [n('v1', 'view', { name: 'Swap' }, [
    n('s1', 'button', { text: '1%', variant: 'main', pressed: true, on: { press: null } }),
    n('s2', 'button', { text: '2%', variant: 'secondary', pressed: false, on: { press: null } }),
    n('go', 'button', { text: 'Review swap', variant: 'main', on: { press: null } }),
  ])]), ctxOf());
  assert.match(html, /aria-pressed="true"[^>]*>.*?1%</);
  assert.match(html, /aria-pressed="false"[^>]*>.*?2%</);
  assert.equal(html.match(/aria-pressed=/g)?.length, 2, 'Review swap is no toggle');
});

test('render: pending hints', () => {
  const spin = draw(tree(), ctxOf(new Map([['b', 'spinner'], ['w1', 'busy']])));
  assert.match(spin, /class="wm-btn"[^>]*aria-busy="true"/);
  assert.match(spin, /class="wm-row wm-wallet"[^>]*aria-busy="true"/);
  const back = draw(tree(), ctxOf(new Map([['h/back', { back: 'v0' }]])));
  assert.match(back, /PREVIOUS VIEW/);
  assert.doesNotMatch(back, /data-view="Connect"/);
  const titled = tree({}, [
    n('v1', 'view', { name: 'AllWallets' }, [n('t1', 'text', { text: 'CURRENT VIEW' })]),
    n('v0', 'view', { name: 'Connect', hidden: true, title: 'Previous Title' }, [n('t0', 'text', { text: 'PREVIOUS VIEW' })]),
  ]);
  const backTitled = draw(titled, ctxOf(new Map([['h/back', { back: 'v0' }]])));
  assert.match(backTitled, /PREVIOUS VIEW/);
  assert.match(backTitled, />Previous Title</, 'the header shows the title the hidden view carries');
  assert.doesNotMatch(backTitled, />Connect Wallet</);
  assert.match(draw(titled, ctxOf()), />Connect Wallet</, 'no hint: the header as sent');
  const bogus = draw(tree(), ctxOf(new Map([['h/back', { back: 'nope' }]])));
  assert.match(bogus, /data-view="Connect"/, 'an unknown back target changes nothing');
  const closed = draw(tree(), ctxOf(new Map([['h/close', 'close']])));
  assert.match(closed, /data-state="closed"/);
  const stuck = draw(tree({ closable: false }), ctxOf(new Map([['h/close', 'close']])));
  assert.match(stuck, /data-state="open"/, 'a close hint does not hide a modal that cannot close');
});

test('render: open, localOpen, embedded, light theme, null tree', () => {
  assert.match(draw(tree({ open: false }), ctxOf()), /data-state="closed"/);
  assert.match(draw(tree({ open: false }), ctxOf(), { localOpen: true }), /data-state="open"/);
  const emb = draw(tree({ embedded: true, open: false }), ctxOf());
  assert.doesNotMatch(emb, /wm-overlay/);
  assert.doesNotMatch(emb, /aria-modal/);
  assert.match(emb, /data-embedded="true"/);
  assert.match(draw(tree(), ctxOf(new Map(), 'light')), /data-theme="light"/);
  assert.match(draw(null, ctxOf()), /class="wm-root"/);
  assert.match(draw(tree({ loading: true }, []), ctxOf()), /wm-loading/);
});

test('css: theme variables and defaults are used', () => {
  const css = C.MODAL_CSS;
  for (const v of ['--w3m-modal-width, 360px', '--w3m-font-size-master, 10px', '--w3m-border-radius-master, 4px',
    '--w3m-z-index, 999', '--w3m-color-mix-strength, 0%', '--w3m-accent, #3396ff', '--w3m-color-mix']) {
    assert.ok(css.includes(v), v);
  }
  assert.match(css, /max-width: 430px/);
  assert.match(css, /data-theme="light"/);
});

// Issue 40 item 8: the React ConnectButton is in the first paint, server-rendered too, before any
// modal exists, and looks as the button drawn once the modal is there (button-view.ts): same
// element, class, part and inline style, so nothing moves when the modal comes.
test('rule: without a modal the ConnectButton draws the Connect Wallet button the modal would draw', () => {
  const html = renderToStaticMarkup(createElement(C.ConnectButton, { modal: null }));
  const found = /<button type="button" class="modalcore-connect-button" part="button" style="([^"]*)">Connect Wallet<\/button>/.exec(html);
  assert.ok(found, html);
  assert.equal(found[1], C.ROW);
  const custom = renderToStaticMarkup(createElement(C.ConnectButton, { modal: null, label: 'Sign in', className: 'mine' }));
  assert.match(custom, /class="mine"[^>]*>Sign in<\/button>/);
});

test('press: a node naming a popup opens that engine page in the click itself, then sends the press', () => {
  // issue 39: only a click may open a window; the renderer opens what the node names, nothing else
  const calls = [];
  const ctx = { send: (id, act) => calls.push(['send', id, act]), pending: new Map(), themeMode: 'dark',
    themeVars: {}, engine: 'http://engine.test:8765' };
  const had = Object.getOwnPropertyDescriptor(globalThis, 'window');
  try {
    globalThis.window = { open: (...args) => { calls.push(['open', ...args]); return {}; } };
    const path = '/embedded/social/window?session=s&provider=google';
    C.pressHandler({ id: 'b', t: 'button', p: { on: { press: 'busy' }, popup: path } }, ctx)();
    assert.deepEqual(calls, [['open', 'http://engine.test:8765' + path, 'modalcore-popup', 'popup,width=480,height=640'],
      ['send', 'b', 'press']]);
    calls.length = 0;
    for (const popup of ['https://evil.test/x', '//evil.test/x', 'javascript:alert(1)', 'x'])
      C.pressHandler({ id: 'b', t: 'button', p: { on: { press: null }, popup } }, ctx)();
    assert.deepEqual(calls, Array(4).fill(['send', 'b', 'press']), 'only a path on the engine opens');
    calls.length = 0;
    globalThis.window = { open: () => null }; // a popup blocker: the press is sent all the same
    C.pressHandler({ id: 'b', t: 'button', p: { on: { press: null }, popup: path } }, ctx)();
    assert.deepEqual(calls, [['send', 'b', 'press']]);
  } finally {
    if (had) Object.defineProperty(globalThis, 'window', had);
    else delete globalThis.window;
  }
});
