// Bundles the components' logic (QR matrix, avatar gradient) and the React components into one
// ESM file for test/components.test.mjs. React stays external: it resolves from node_modules.
// Run directly (`node test/build-components-test.mjs`) it just builds and prints the path.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the bundle and returns its file URL (for `import()`). */
export async function buildComponentsForTest() {
  const outfile = join(root, 'dist', 'components-test', 'components.mjs');
  await build({
    stdin: {
      contents: [
        "export { avatarGradient } from './src/components/avatar.ts';",
        "export { parseModules, qrPaths } from './src/components/layout.tsx';",
        "export { ModalRoot, renderNode, MODAL_CSS } from './src/components/index.tsx';",
        "export { EngineBase } from './src/components/basic.tsx';",
        "export { ConnectButton } from './src/connect-button.tsx';",
        "export { ROW } from './src/button-view.ts';",
        "export { pressHandler } from './src/components/util.ts';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
      sourcefile: 'components-test-entry.ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    jsx: 'automatic',
    loader: { '.css': 'text' },
    external: ['react', 'react-dom', 'react/*', 'react-dom/*'],
    outfile,
    logLevel: 'warning',
  });
  return pathToFileURL(outfile).href;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(await buildComponentsForTest());
}
