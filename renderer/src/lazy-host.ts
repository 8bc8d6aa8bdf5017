/**
 * `createModal` of the npm package's entries (issue 40 item 8): the modal's code (`host.ts`:
 * React's root, the views, the transport) is a chunk of its own, imported on idle, on the
 * button's hover, focus or pointerdown, or on `open()` (lazy-modal.ts); the host app's bundler
 * emits it beside the app's code.
 */
import type { ModalOptions } from './host';
import { type LazyModal, type ModalFactory, createLazyModal } from './lazy-modal';

let factory: ModalFactory | null = null;
const load = (): ModalFactory | Promise<ModalFactory> => factory ?? import('./host').then((m) => (factory = m.createModal));

export function createModal(options: ModalOptions): LazyModal {
  return createLazyModal(options, load);
}
