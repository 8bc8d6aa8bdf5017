// The npm SDK needs the engine's URL (issue 40 item 4): without it a bundled app's modal looked
// for the engine on the app's own origin and retried a 404 for ever. createModal refuses at once,
// saying what to add; the type requires it too (checked by tsc in the scratch-app test).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ENGINE_URL_MISSING, type ModalOptions, createModal } from '../src/sdk/index';

test('createModal without engineUrl throws once, naming the option and an example', () => {
  const options = { projectId: 'demo', networks: ['eip155:1'] } as unknown as ModalOptions;
  assert.throws(() => createModal(options), (error: Error) => error.message === ENGINE_URL_MISSING);
  assert.throws(() => createModal({ ...options, engineUrl: '  ' }), /engineUrl` is required/);
  assert.match(ENGINE_URL_MISSING, /engineUrl: 'https:\/\/engine\.example'/);
});
