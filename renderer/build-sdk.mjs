// Builds the npm package `@modalcore/sdk` into ../sdk/dist: ESM entries (index, react, wagmi,
// elements) with React, react-dom, viem and @wagmi/core left to the host app, their type
// declarations (tsc --emitDeclarationOnly), and a copy of the script-tag bundle dist/modal.js.
// Prints each entry's size without React, and plain + React together (goal ≤ 30 KB gzip).
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
const result = await build({
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
});
execFileSync(process.execPath, [join(here, 'node_modules/typescript/bin/tsc'), '-p', join(here, 'tsconfig.sdk.json')], { stdio: 'inherit' });
await copyFile(join(here, 'dist', 'modal.js'), join(out, 'modal.js')).catch(() => {
  console.error('dist/modal.js is missing: run `node build.mjs` first');
  process.exit(1);
});

/** gzip size of an entry with every chunk it imports (React and the other peers excluded). */
const outputs = result.metafile.outputs;
function closure(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const imp of outputs[file]?.imports ?? []) if (!imp.external) closure(imp.path, seen);
  return seen;
}
const rel = (name) => Object.keys(outputs).find((file) => file.endsWith(`/${name}.js`));
const gzipOf = async (files) => gzipSync(Buffer.concat(await Promise.all([...files].map((f) => readFile(f)))), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const sizes = {};
for (const name of ENTRIES) {
  sizes[name] = await gzipOf(closure(rel(name)));
  console.log(`sdk/dist/${name}.js (+ chunks, without React): ${kb(sizes[name])} gzip`);
}
sizes['index+react'] = await gzipOf(new Set([...closure(rel('index')), ...closure(rel('react'))]));
console.log(`sdk plain + React entries (without React): ${kb(sizes['index+react'])} gzip (goal 30.0 KB)`);
// for `make bench` (modalcore_dev/bench/latency_bench.py), outside the package
await writeFile(join(here, 'dist', 'sdk-sizes.json'), JSON.stringify(sizes));
