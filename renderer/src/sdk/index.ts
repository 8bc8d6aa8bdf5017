/**
 * `@modalcore/sdk`: the plain host API. Importing it touches no `window`, storage or IndexedDB;
 * `createModal` (in the browser) mounts the modal and opens the engine's websocket.
 */
import type { Modal, ModalOptions as ScriptModalOptions } from '../host';
// the modal's code (React root, views, transport) is a chunk fetched on idle, hover or open()
import { createModal as createScriptModal } from '../lazy-host';

export type { Modal, HostProvider, Unsubscribe } from '../host';

/** The modal's options in an app that bundles the SDK: as the script tag's, with the engine's
 * base URL required (a bundled app has no script origin to default to, and its own origin
 * serves no engine). */
export type ModalOptions = ScriptModalOptions & { engineUrl: string };

/** Thrown by `createModal` (and so by the React provider and the wagmi connector on first use)
 * when the options name no engine. */
export const ENGINE_URL_MISSING =
  "modalcore: `engineUrl` is required with @modalcore/sdk: the engine's base URL, e.g. " +
  "createModal({ projectId, networks, engineUrl: 'https://engine.example' }) " +
  "(without it the modal would look for the engine on this page's own origin).";

export function createModal(options: ModalOptions): Modal {
  const url: unknown = (options as { engineUrl?: unknown }).engineUrl;
  if (typeof url !== 'string' || url.trim() === '') throw new Error(ENGINE_URL_MISSING);
  return createScriptModal(options);
}
export type { AccountState, ConnectionState, ModalError, ModalState, NetworkOption, NetworkState, SignInState, WalletInfo } from '../host-events';
export type { CustomWallet, EngineOptions, Features, HostView, Metadata, SiwxOptions } from '../host';
export { SignInError, signIn, signOut, subscribeEvents, walletInfo, type ModalEvent, type ModalEventType } from './actions';

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
