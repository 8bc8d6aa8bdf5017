// Server rendering with the published package in Node: every entry imports, and a tree using
// <ModalProvider>, the hooks and <ConnectButton> renders to HTML with the defaults. Node has no
// window, localStorage or indexedDB: touching one would throw here.
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import * as plain from '@modalcore/sdk';
import { ConnectButton, ModalProvider, useAccount, useModal, useNetwork, useSignIn, useWalletInfo } from '@modalcore/sdk/react';
import { modalcore } from '@modalcore/sdk/wagmi';
import '@modalcore/sdk/elements';

function Page() {
  const account = useAccount();
  const network = useNetwork();
  const signIn = useSignIn();
  const { isOpen, modal } = useModal();
  const { walletInfo } = useWalletInfo();
  return h('div', null,
    h(ConnectButton, { label: 'Connect' }),
    h(ConnectButton.Custom, null, ({ mounted, account }) => h('i', { id: 'custom' }, `${mounted}:${account === undefined}:${walletInfo === null}`)),
    h('pre', { id: 'state' }, JSON.stringify({ connected: account.isConnected, address: account.address,
      network: network.caipNetworkId, signIn: signIn.signedIn, isOpen, modal: modal === null })));
}

const lazy = plain.lazyModal({ projectId: 'demo', networks: ['eip155:1'] });
const connector = modalcore({ modal: lazy });
const html = renderToString(h(ModalProvider, { options: { projectId: 'demo', networks: ['eip155:1'] } }, h(Page)));
console.log(JSON.stringify({ html, createModal: typeof plain.createModal, connector: typeof connector,
  globals: ['window', 'document', 'localStorage', 'indexedDB'].filter((name) => name in globalThis) }));
