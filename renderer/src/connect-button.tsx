/** `<ConnectButton modal={modal}/>`: "Connect Wallet", or the connected address; opens the modal. */
import { useEffect, useState } from 'react';
import type { Modal } from './host';

/** `0x1234…abcd` */
export function truncateAddress(address: string): string {
  return address.length > 13 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** The connected address from an `account` host event, or ''. */
export function connectedAddress(account: Record<string, unknown> | undefined): string {
  return account?.isConnected && typeof account.address === 'string' ? account.address : '';
}

export function ConnectButton(props: { modal: Modal; label?: string; className?: string }) {
  const { modal, label = 'Connect Wallet', className = 'modalcore-connect-button' } = props;
  const [address, setAddress] = useState('');
  useEffect(() => modal.subscribeAccount((account) => setAddress(connectedAddress(account))), [modal]);
  return (
    <button type="button" className={className} title={address || undefined} onClick={() => void modal.open()}>
      {address ? truncateAddress(address) : label}
    </button>
  );
}
