// Builds dist/modal.js (global ModalCore, React included), dist/loader.js (the script tag's
// ≤ 10 KiB critical path: the connect button at once, modal.js fetched later by its hashed URL),
// dist/demo.js, dist/inspect.js (the session inspector's stage, global ModalInspect) and
// dist/index.html; modal.js and loader.js with their .gz and .br beside them.
// `node build.mjs --tests` compiles test/*.test.ts into dist/test/*.test.mjs instead.
import { build, transform } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
/** modal.js: fetched after first paint since the loader (issue 40 item 8), no longer on the
 * critical path; kept from growing all the same. */
const BUDGET_GZIP = 86 * 1024;
/** The loader (issue 40 item 8); tests/bench asserts it too, on the built bytes. */
const LOADER_BUDGET_GZIP = 10 * 1024;

const common = {
  bundle: true,
  target: 'es2020',
  jsx: 'automatic',
  logLevel: 'warning',
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
};

/** Stylesheets are imported as text (the modal injects them in its shadow root), minified. */
const cssText = {
  name: 'css-text',
  setup(b) {
    b.onLoad({ filter: /\.css$/ }, async (args) => {
      const { code } = await transform(await readFile(args.path, 'utf8'), { loader: 'css', minify: true });
      return { contents: code.trim(), loader: 'text' };
    });
  },
};

/** The demo draws with the React copy inside modal.js (window.ModalCore), not a second one. */
const sharedReact = {
  name: 'shared-react',
  setup(b) {
    const globals = { react: 'React', 'react-dom/client': 'ReactDOMClient' };
    b.onResolve({ filter: /^(react|react-dom\/client)$/ }, (args) => ({ path: args.path, namespace: 'shared-react' }));
    b.onLoad({ filter: /.*/, namespace: 'shared-react' }, (args) => ({
      contents: `module.exports = window.ModalCore.${globals[args.path]};`,
      loader: 'js',
    }));
  },
};

async function buildBundles() {
  await mkdir(dist, { recursive: true });
  await build({
    ...common,
    entryPoints: [join(here, 'src/index.ts')],
    outfile: join(dist, 'modal.js'),
    format: 'iife',
    globalName: 'ModalCore',
    minify: true,
    plugins: [cssText],
  });
  await build({
    ...common,
    entryPoints: [join(here, 'demo/demo.tsx')],
    outfile: join(dist, 'demo.js'),
    format: 'iife',
    minify: true,
    plugins: [sharedReact, cssText],
  });
  await build({ // the session inspector's stage (python -m modalcore inspect), not for host pages
    ...common,
    entryPoints: [join(here, 'inspect/viewer.tsx')],
    outfile: join(dist, 'inspect.js'),
    format: 'iife',
    globalName: 'ModalInspect',
    minify: true,
    plugins: [cssText],
  });
  await copyFile(join(here, 'demo/index.html'), join(dist, 'index.html'));
  const modal = await readFile(join(dist, 'modal.js'));
  // the loader names modal.js by the digest server/bundle.py serves it under (sha256, 12 hex)
  const digest = createHash('sha256').update(modal).digest('hex').slice(0, 12);
  await build({
    ...common,
    entryPoints: [join(here, 'src/loader.ts')],
    outfile: join(dist, 'loader.js'),
    format: 'iife',
    globalName: 'ModalCore',
    minify: true,
    define: { ...common.define, MODALCORE_BUNDLE: JSON.stringify(`modal.${digest}.js`) },
  });
  const modalGzip = await precompress('modal.js');
  const loaderGzip = await precompress('loader.js');
  if (modalGzip > BUDGET_GZIP || loaderGzip > LOADER_BUDGET_GZIP) {
    console.error(`dist/${modalGzip > BUDGET_GZIP ? 'modal' : 'loader'}.js is over its gzip budget`);
    process.exit(1);
  }
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** Writes `name`.gz and `name`.br beside it (the engine answers brotli or gzip by
 * Accept-Encoding: server/bundle.py); prints and returns the gzip size. */
async function precompress(name) {
  const plain = await readFile(join(dist, name));
  const gzipped = gzipSync(plain, { level: 9 });
  const brotli = brotliCompressSync(plain, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length },
  });
  await writeFile(join(dist, `${name}.gz`), gzipped);
  await writeFile(join(dist, `${name}.br`), brotli);
  const budget = name === 'loader.js' ? LOADER_BUDGET_GZIP : BUDGET_GZIP;
  console.log(`dist/${name}: ${kb(plain.length)} minified, ${kb(gzipped.length)} gzip, ${kb(brotli.length)} brotli (budget ${kb(budget)} gzip)`);
  return gzipped.length;
}

async function buildTests() {
  const dir = join(here, 'test');
  const entries = (await readdir(dir)).filter((name) => name.endsWith('.test.ts'));
  await build({
    ...common,
    entryPoints: entries.map((name) => join(dir, name)),
    outdir: join(dist, 'test'),
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    plugins: [cssText],
  });
}

if (process.argv.includes('--tests')) await buildTests();
else await buildBundles();
