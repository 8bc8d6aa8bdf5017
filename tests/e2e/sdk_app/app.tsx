/**
 * A host dApp as a team would write it against the published `@modalcore/sdk`: wagmi + viem +
 * react-query through the modalcore connector, beside the SDK's own provider, hooks and button.
 * tests/e2e/test_sdk_npm_browser.py type-checks it against the package's declarations, bundles
 * it with esbuild and drives it in Chromium; what it shows in #out is what the test reads.
 */
import { useState } from 'react';
import { parseEther, type Hex } from 'viem';
import {
  createConfig, http, useAccount, useBalance, useConnect, useDisconnect,
  useSendTransaction, useSignMessage, useSwitchChain, useWaitForTransactionReceipt,
} from 'wagmi';
import { lazyModal, type AccountState, type ModalOptions } from '@modalcore/sdk';
import { ConnectButton, useAccount as useModalAccount, useModal, useNetwork, useSignIn } from '@modalcore/sdk/react';
import { modalcore } from '@modalcore/sdk/wagmi';
import { defineButtonElement } from '@modalcore/sdk/elements';
import { devChain, mount, origin } from './scratch';

const chainA = devChain(31337);
const chainB = devChain(31338);

const options: ModalOptions = {
  projectId: 'demo',
  networks: ['eip155:31337', 'eip155:31338'],
  engineUrl: origin,
  metadata: { name: 'SDK scratch app', description: 'wagmi through modalcore', url: origin, icons: [] },
};
const modal = lazyModal(options);
const config = createConfig({
  chains: [chainA, chainB],
  connectors: [modalcore({ modal })],
  // the modal discovers the wallets (EIP-6963) itself; wagmi's own discovery would add each
  // wallet again as a connector of its own, which takes over on that wallet's `connect` event
  multiInjectedProviderDiscovery: false,
  transports: { [chainA.id]: http(), [chainB.id]: http() },
});
defineButtonElement('scratch-button');

const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

function App() {
  const account = useAccount();
  const balance = useBalance({ address: account.address });
  const { connectors, connectAsync } = useConnect();
  const { disconnectAsync } = useDisconnect();
  const sign = useSignMessage();
  const send = useSendTransaction();
  const receipt = useWaitForTransactionReceipt({ hash: send.data });
  const { switchChainAsync } = useSwitchChain();
  const modalAccount: AccountState = useModalAccount();
  const network = useNetwork();
  const signIn = useSignIn();
  const { isOpen } = useModal();
  const [error, setError] = useState<{ name: string; code?: number; message: string } | null>(null);
  const guard = (run: () => Promise<unknown>) => () => {
    setError(null);
    run().catch((e: { name: string; code?: number; message: string; cause?: { code?: number } }) =>
      setError({ name: e.name, code: e.code ?? e.cause?.code, message: e.message.slice(0, 300) }));
  };
  const txHash: Hex | undefined = send.data;
  const out = {
    status: account.status,
    address: account.address ?? null,
    chainId: account.chainId ?? null,
    connector: account.connector?.id ?? null,
    balance: balance.data ? balance.data.value.toString() : null,
    signature: sign.data ?? null,
    txHash: txHash ?? null,
    receipt: receipt.data ? receipt.data.status : null,
    error,
    modal: { isOpen, connected: modalAccount.isConnected, connector: modalAccount.connector, address: modalAccount.address, network: network.caipNetworkId, signIn: signIn.enabled },
  };
  return (
    <main>
      <ConnectButton label="SDK Connect" />
      <button id="connect" onClick={guard(() => connectAsync({ connector: connectors.find((c) => c.id === 'modalcore')! }))}>wagmi connect</button>
      <button id="sign" onClick={guard(() => sign.signMessageAsync({ message: 'hello from wagmi' }))}>sign</button>
      <button id="send" onClick={guard(() => send.sendTransactionAsync({ to: RECIPIENT, value: parseEther('0.01') }))}>send</button>
      <button id="switch" onClick={guard(() => switchChainAsync({ chainId: chainB.id }))}>switch</button>
      <button id="disconnect" onClick={guard(() => disconnectAsync())}>disconnect</button>
      <pre id="out">{JSON.stringify(out)}</pre>
    </main>
  );
}

mount(config, modal, <App />);
