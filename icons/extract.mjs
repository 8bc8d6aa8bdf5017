// Writes the marks the engine serves (modalcore/icons) from the pinned icon set (web3icons, MIT)
// into modalcore/data/icons: one SVG per mark and manifest.json naming them. Only these few are
// kept (the package is 81 MB); the output is committed, so `make run` and `make test` need no
// install of it. `make icons` runs this again after a version bump or a new mark.
//   node extract.mjs [outDir]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { networks } from '@web3icons/common';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, '..', 'modalcore', 'data', 'icons');
const core = join(here, 'node_modules', '@web3icons', 'core');

// directory wallet id (modalcore/data/wallets.json) -> the set's wallet id (WalletConnect's own row
// keeps the mark views/logos.py draws)
const WALLETS = {
  metamask: 'metamask', trust: 'trust', coinbase: 'coinbase', rainbow: 'rainbow', okx: 'okx',
  phantom: 'phantom', rabby: 'rabby', zerion: 'zerion', ledger: 'ledger', safe: 'safe', argent: 'argent',
  exodus: 'exodus', imtoken: 'imtoken', tokenpocket: 'token-pocket', coin98: 'coin98', enkrypt: 'enkrypt',
  backpack: 'backpack', solflare: 'solflare', glow: 'glow', keplr: 'keplr', mew: 'my-ether-wallet',
  sequence: 'sequence', unipass: 'unipass', xdefi: 'xdefi',
};
const TOKENS = ['ETH', 'USDC', 'USDT', 'DAI', 'SOL', 'WBTC', 'POL', 'MATIC', 'BNB', 'AVAX', 'OP', 'ARB',
  'LINK', 'UNI'];
// networks by CAIP-2 id, as the set's metadata names them
const NETWORKS = ['eip155:1', 'eip155:10', 'eip155:56', 'eip155:137', 'eip155:8453', 'eip155:42161',
  'eip155:43114', 'eip155:100', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'];
// onramp providers (behaviour.md §7 onramp options) -> the set's exchange id; Meld has no mark
const ONRAMP = { coinbase: 'coinbase' };
const VARIANT = { wallet: 'background', token: 'background', network: 'background', onramp: 'background' };  // read on light and dark alike
const FOLDER = { wallet: 'wallets', token: 'tokens', network: 'networks', onramp: 'exchanges' };

async function svg(kind, id) {
  const file = join(core, 'dist', 'svgs', FOLDER[kind], VARIANT[kind], `${id}.svg.js`);
  const text = (await import(file)).default;
  if (typeof text !== 'string' || !text.startsWith('<svg')) throw new Error(`${file}: no SVG`);
  return text.replace(' class="web3icons"', '').replace(/\n\s*/g, '') + '\n';
}

for (const kind of Object.keys(FOLDER)) rmSync(join(out, kind), { recursive: true, force: true });  // LICENSE stays
const manifest = { source: '', wallet: {}, token: {}, network: {}, onramp: {} };
const pkg = JSON.parse(readFileSync(join(core, 'package.json'), 'utf8'));
manifest.source = `${pkg.name} ${pkg.version} (${pkg.license}), variant ${VARIANT.wallet}`;

async function put(kind, name, id) {
  mkdirSync(join(out, kind), { recursive: true });
  writeFileSync(join(out, kind, `${name}.svg`), await svg(kind, id));
}
for (const [name, id] of Object.entries(WALLETS)) {
  await put('wallet', name, id);
  manifest.wallet[name] = name;
}
for (const symbol of TOKENS) {
  await put('token', symbol, symbol);
  manifest.token[symbol] = symbol;
}
for (const caip2 of NETWORKS) {
  const found = networks.find((n) => n.caip2id === caip2);
  if (!found) throw new Error(`no network ${caip2} in the set`);
  await put('network', found.id, found.id);
  manifest.network[caip2] = found.id;
}
for (const [name, id] of Object.entries(ONRAMP)) {
  await put('onramp', name, id);
  manifest.onramp[name] = name;
}
writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
console.log(`wrote ${Object.values(manifest).slice(1).reduce((n, m) => n + Object.keys(m).length, 0)} marks to ${out}`);
