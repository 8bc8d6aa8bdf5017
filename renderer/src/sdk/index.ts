/**
 * `@modalcore/sdk`: the plain host API. Importing it touches no `window`, storage or IndexedDB;
 * `createModal` (in the browser) mounts the modal and opens the engine's websocket.
 */
import { type Modal, type ModalOptions, createModal } from '../host';

export { createModal };
export type { Modal, ModalOptions, HostProvider, Unsubscribe } from '../host';
export type { AccountState, ConnectionState, ModalError, ModalState, NetworkState, SignInState } from '../host-events';

/** A getter of one modal, created on first call (in the browser, at mount or connect), so that
 * the React provider and the wagmi connector can share it while nothing runs at import or during
 * server rendering. */
export function lazyModal(options: ModalOptions): () => Modal {
  let modal: Modal | null = null;
  return () => {
    if (typeof window === 'undefined') throw new Error('modalcore: the modal exists only in the browser');
    return (modal ??= createModal(options));
  };
}

/** Either a modal or a getter of one (see `lazyModal`). */
export type ModalSource = Modal | (() => Modal);

export function resolveModal(source: ModalSource): Modal {
  return typeof source === 'function' ? source() : source;
}
