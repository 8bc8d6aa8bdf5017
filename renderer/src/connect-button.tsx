/** `<ConnectButton modal={modal}/>`: "Connect Wallet", or the connected address; opens the modal. */
import { useEffect, useState } from 'react';
import type { Modal } from './host';

/** What the engine says a button shows for the connected account (`display`), or ''. */
export function connectedLabel(account: Record<string, unknown> | undefined): string {
  return account?.isConnected && typeof account.display === 'string' ? account.display : '';
}

/** The connected address (for the button's title), or ''. */
export function connectedAddress(account: Record<string, unknown> | undefined): string {
  return account?.isConnected && typeof account.address === 'string' ? account.address : '';
}

export function ConnectButton(props: { modal: Modal; label?: string; className?: string }) {
  const { modal, label = 'Connect Wallet', className = 'modalcore-connect-button' } = props;
  const [account, setAccount] = useState({ address: '', display: '' });
  useEffect(
    () =>
      modal.subscribeAccount((state) =>
        setAccount({ address: connectedAddress(state), display: connectedLabel(state) }),
      ),
    [modal],
  );
  return (
    <button type="button" className={className} title={account.address || undefined} onClick={() => void modal.open()}>
      {account.display || label}
    </button>
  );
}
