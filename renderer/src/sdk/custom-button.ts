/** What `<ConnectButton.Custom>` hands its render function (RainbowKit's shape), from the host
 * events: the engine formats what is shown (display name, balance), this only gathers it. */
import type { Modal } from '../host';
import type { AccountState, ModalState, NetworkState, SignInState } from '../host-events';

export type CustomButtonProps = {
  /** The connected account (undefined while nothing is connected). */
  account?: { address: string; displayName: string; displayBalance?: string; ensAvatar?: string };
  /** The network the wallet is on (undefined while nothing is connected). */
  chain?: { id: string; chainId: number | string; name: string; iconUrl?: string; unsupported: boolean };
  openConnectModal(): void;
  openAccountModal(): void;
  openChainModal(): void;
  connectModalOpen: boolean;
  accountModalOpen: boolean;
  chainModalOpen: boolean;
  /** With sign-in on (`siwx`): whether the visitor is signed in; undefined without it. */
  authenticationStatus?: 'loading' | 'unauthenticated' | 'authenticated';
  /** False until the modal is mounted (server rendering, first client render). */
  mounted: boolean;
};

export function customButtonProps(modal: Pick<Modal, 'open'> | null, account: AccountState, network: NetworkState,
  siwx: SignInState, state: ModalState): CustomButtonProps {
  const connected = account.isConnected;
  const open = (view?: 'Connect' | 'Account' | 'Networks') => () => void modal?.open(view ? { view } : undefined);
  return {
    account: connected ? {
      address: account.address,
      displayName: account.display,
      ...(account.balance ? { displayBalance: account.balance } : {}),
      ...(account.avatar ? { ensAvatar: account.avatar } : {}),
    } : undefined,
    chain: connected && network.caipNetworkId ? {
      id: network.caipNetworkId,
      chainId: Number(network.chainId) || network.chainId, // a Solana reference stays a string
      name: network.name,
      ...(network.image ? { iconUrl: network.image } : {}),
      unsupported: !network.supported,
    } : undefined,
    openConnectModal: open(connected ? undefined : 'Connect'),
    openAccountModal: open(connected ? 'Account' : undefined),
    openChainModal: open('Networks'),
    connectModalOpen: state.open && !connected,
    accountModalOpen: state.open && connected && state.view !== 'Networks',
    chainModalOpen: state.open && state.view === 'Networks',
    authenticationStatus: !siwx.enabled ? undefined : !connected ? 'unauthenticated'
      : siwx.signedIn ? 'authenticated' : 'unauthenticated',
    mounted: modal !== null,
  };
}
