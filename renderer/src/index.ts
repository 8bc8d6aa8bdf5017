/** The bundle entry (`dist/modal.js`, global `ModalCore`). */
import * as React from 'react';
import * as ReactDOMClient from 'react-dom/client';
import { defineButtonElement } from './element';
import { createModal } from './host';

export { createModal, type Modal, type ModalOptions, type HostProvider } from './host';
export { ConnectButton } from './connect-button';
export { defineButtonElement } from './element';
export type { WireNode, PendingHint, RenderCtx } from './tree';
/** The bundle's own React, for host pages that want to draw with the same copy (the demo). */
export { React, ReactDOMClient };

defineButtonElement('modalcore-button', createModal);
