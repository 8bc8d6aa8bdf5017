/** What the engine's `host_event` frames tell the host page (modalcore/engine/hostevents.py). */

export type ModalState = {
  open: boolean;
  /** Whether the account is connected, in the same event as `open`: `open: false` with
   * `connected: false` is a close without a connection. */
  connected: boolean;
  loading: boolean;
  /** The view the modal shows (e.g. 'Connect', 'Account'). */
  view: string;
  /** CAIP-2 id of the network the wallet is on ('' before any). */
  selectedNetworkId: string;
  activeChain: string;
  initialized: boolean;
};

export type AccountState = {
  address: string;
  /** CAIP-10, e.g. 'eip155:1:0xabc…'. */
  caipAddress: string;
  isConnected: boolean;
  status: 'connected' | 'connecting' | 'reconnecting' | 'disconnected' | string;
  /** The connector the account came through (an EIP-6963 rdns, 'walletConnect', 'auth', …). */
  connector: string;
  /** What an account button shows: profile name or truncated address, balance, avatar URL. */
  display: string;
  balance: string;
  avatar: string;
  /** The embedded wallet only (behaviour.md §3): which account `address` is, and both of them. */
  preferredAccountType?: 'smartAccount' | 'eoa' | string;
  smartAccountDeployed?: boolean;
  allAccounts?: { address: string; type: 'smartAccount' | 'eoa' | string }[];
  /** While connected: the wallet the account came through. */
  walletInfo?: WalletInfo;
};

/** The connected wallet: its name, icon (a data URI, an https URL or '') and connector type. */
export type WalletInfo = {
  name: string;
  icon: string;
  type: 'ANNOUNCED' | 'INJECTED' | 'WALLET_CONNECT' | 'AUTH' | string;
};

/** One of the host's networks, as a network list shows it. */
export type NetworkOption = { caipNetworkId: string; name: string; image: string };

export type NetworkState = {
  /** CAIP-2, e.g. 'eip155:1' ('' before any). */
  caipNetworkId: string;
  /** The reference part of the CAIP-2 id, e.g. '1'. */
  chainId: string;
  name: string;
  image: string;
  /** False while the wallet is on a network the host did not configure. */
  supported: boolean;
  /** The host's networks, in the host's order. */
  networks?: NetworkOption[];
};

export type SignInState = {
  enabled: boolean;
  signedIn: boolean;
  /** The sign-in token for the host's backend ('' when not signed in). */
  token: string;
};

/** Renderer-side (no engine frame carries them): whether the engine answers. */
export type ConnectionState = { status: 'connecting' | 'connected' | 'unreachable' };

export type ModalError = {
  /** 'unreachable': the engine refused or did not answer the websocket (renderer/src/offline.ts). */
  code: 'unreachable' | string;
  message: string;
};
