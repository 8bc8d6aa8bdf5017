/**
 * What AppKit, RainbowKit and ConnectKit users reach for (issue 40 item 6), as a team would write
 * it against the published `@modalcore/sdk`: one `getDefaultConfig` call for wagmi and the modal,
 * `ConnectButton.Custom`, `useWalletInfo`, `useProvider`, `useSignIn` (signIn / signOut),
 * `useModalEvents` and `useNetwork`'s list. tests/e2e/test_sdk_npm_browser.py type-checks it,
 * bundles it and drives it; what it shows in #out is what the test reads.
 */
import { useState } from 'react';
import { useAccount } from 'wagmi';
import {
  ConnectButton, useModalEvents, useNetwork, useProvider, useSignIn, useWalletInfo,
  type ModalEvent,
} from '@modalcore/sdk/react';
import { getDefaultConfig } from '@modalcore/sdk/wagmi';
import { devChain, mount, origin } from './scratch';

const { config, modal } = getDefaultConfig({
  projectId: 'demo',
  engineUrl: origin,
  appName: 'SDK hooks app',
  chains: [devChain(31337), devChain(31338)],
  options: { siwx: { required: false, statement: 'Sign in to the hooks app' } },
});

function App() {
  const wagmi = useAccount();
  const { walletInfo } = useWalletInfo();
  const { provider } = useProvider();
  const signIn = useSignIn();
  const network = useNetwork();
  const [events, setEvents] = useState<ModalEvent['type'][]>([]);
  useModalEvents((event) => setEvents((seen) => [...seen, event.type]));
  const [results, setResults] = useState<Record<string, string>>({});
  const note = (key: string, run: () => Promise<unknown>) => () => {
    run().then((value) => setResults((r) => ({ ...r, [key]: typeof value === 'string' ? value : 'ok' })),
      (error: Error) => setResults((r) => ({ ...r, [key]: `error: ${error.name}: ${error.message}` })));
  };
  const out = {
    wagmi: { status: wagmi.status, connector: wagmi.connector?.id ?? null, chainId: wagmi.chainId ?? null },
    walletInfo,
    provider: provider !== null,
    signIn: { enabled: signIn.enabled, signedIn: signIn.signedIn, token: signIn.token !== '' },
    network: network.caipNetworkId,
    networks: network.networks.map((n) => n.caipNetworkId),
    events,
    results,
  };
  return (
    <main>
      <ConnectButton.Custom>
        {({ account, chain, openConnectModal, openAccountModal, openChainModal, mounted, authenticationStatus }) => (
          <div id="custom" data-mounted={String(mounted)}>
            {!account
              ? <button id="custom-connect" onClick={openConnectModal}>Custom connect</button>
              : <button id="custom-account" onClick={openAccountModal}>{account.displayName}</button>}
            {chain && <button id="custom-chain" onClick={openChainModal}>{chain.name}</button>}
            <span id="custom-auth">{authenticationStatus ?? 'off'}</span>
          </div>
        )}
      </ConnectButton.Custom>
      <button id="sign-in" onClick={note('signIn', signIn.signIn)}>sign in</button>
      <button id="sign-out" onClick={note('signOut', signIn.signOut)}>sign out</button>
      <button id="provider-chain" onClick={note('chainId', async () => provider?.request({ method: 'eth_chainId' }))}>chain id</button>
      <pre id="out">{JSON.stringify(out)}</pre>
    </main>
  );
}

mount(config, modal, <App />);
