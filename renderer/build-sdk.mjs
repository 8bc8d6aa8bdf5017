// Builds the npm package `@modalcore/sdk` into ../sdk/dist: ESM entries (index, react, wagmi,
// elements) with React, react-dom, viem and @wagmi/core left to the host app, their type
// declarations (tsc --emitDeclarationOnly), and a copy of the script-tag bundle dist/modal.js.
// Prints each entry's critical path without React (goal ≤ 10 KiB gzip: the modal's code is a chunk
// imported later, lazy-host.ts), the modal chunk, and the whole SDK without and with React.
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFile, readFile, rm, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'sdk', 'dist');
const ENTRIES = ['index', 'react', 'wagmi', 'elements'];
const PEERS = ['react', 'react/*', 'react-dom', 'react-dom/*', 'viem', 'viem/*', 'wagmi', 'wagmi/*'];

const cssText = {
  name: 'css-text',
  setup(b) {
    b.onLoad({ filter: /\.css$/ }, async (args) => {
      const { code } = await transform(await readFile(args.path, 'utf8'), { loader: 'css', minify: true });
      return { contents: code.trim(), loader: 'text' };
    });
  },
};

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const options = {
  entryPoints: Object.fromEntries(ENTRIES.map((name) => [name, join(here, `src/sdk/${name}.${name === 'react' ? 'tsx' : 'ts'}`)])),
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2020',
  jsx: 'automatic',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  external: PEERS,
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  plugins: [cssText],
};
const result = await build(options);
execFileSync(process.execPath, [join(here, 'node_modules/typescript/bin/tsc'), '-p', join(here, 'tsconfig.sdk.json')], { stdio: 'inherit' });
await copyFile(join(here, 'dist', 'modal.js'), join(out, 'modal.js')).catch(() => {
  console.error('dist/modal.js is missing: run `node build.mjs` first');
  process.exit(1);
});

/** Each entry's critical path (itself and the chunks it imports statically: what an app loads
 * before its first paint) and the modal's chunk (imported on idle, hover or open():
 * lazy-host.ts), gzip, without React (the app's own) and, for an app that has none, with it. */
const measured = measure(result.metafile.outputs);
const withReact = await build({
  ...options,
  outdir: join(here, 'dist', 'sdk-with-react'),
  external: PEERS.filter((peer) => !peer.startsWith('react')),
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'error',
});
const measuredWithReact = measure(withReact.metafile.outputs);

function measure(outputs) {
  const closure = (files, dynamic, seen = new Set()) => {
    for (const file of files) {
      if (seen.has(file)) continue;
      seen.add(file);
      const next = (outputs[file]?.imports ?? []).filter((i) => !i.external && (dynamic || i.kind !== 'dynamic-import'));
      closure(next.map((i) => i.path), dynamic, seen);
    }
    return seen;
  };
  const rel = (name) => Object.keys(outputs).find((file) => file.endsWith(`/${name}.js`));
  return {
    critical: (...names) => closure(names.map(rel), false),
    whole: (...names) => closure(names.map(rel), true),
  };
}
const gzipOf = async (files) => gzipSync(Buffer.concat(await Promise.all([...files].map((f) => readFile(f)))), { level: 9 }).length;
const minus = (a, b) => new Set([...a].filter((file) => !b.has(file)));
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const sizes = {};
for (const name of ENTRIES) {
  sizes[name] = await gzipOf(measured.critical(name));
  console.log(`sdk/dist/${name}.js critical path (+ static chunks, without React): ${kb(sizes[name])} gzip`);
}
sizes['index+react'] = await gzipOf(measured.critical('index', 'react'));
sizes['modal chunk'] = await gzipOf(minus(measured.whole(...ENTRIES), measured.critical(...ENTRIES)));
sizes['whole'] = await gzipOf(measured.whole('index', 'react'));
sizes['whole with React'] = await gzipOf(measuredWithReact.whole('index', 'react'));
sizes['index+react with React'] = await gzipOf(measuredWithReact.critical('index', 'react'));
console.log(`sdk plain + React entries, critical path: ${kb(sizes['index+react'])} gzip without React (goal ≤ 10 KiB), ` +
  `${kb(sizes['index+react with React'])} with React`);
console.log(`sdk modal chunk (fetched on idle, hover or open()): ${kb(sizes['modal chunk'])} gzip without React; ` +
  `the whole SDK (plain + React): ${kb(sizes.whole)} without React, ${kb(sizes['whole with React'])} with React`);
await rm(join(here, 'dist', 'sdk-with-react'), { recursive: true, force: true });
// for `make bench` (modalcore_dev/bench/latency_bench.py), outside the package
await writeFile(join(here, 'dist', 'sdk-sizes.json'), JSON.stringify(sizes));
