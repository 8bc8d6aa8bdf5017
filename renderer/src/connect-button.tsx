/**
 * `<ConnectButton modal={modal}/>`: "Connect Wallet", or once connected the account button
 * (avatar, address or name, balance) and, with `network`, a network button; opens the modal.
 * What each part says is the engine's (host events `account` and `network`).
 */
import { useEffect, useRef } from 'react';
import { type ButtonOptions, mountButtons } from './button-view';
import type { Modal } from './host';

export function ConnectButton(props: { modal: Modal | null } & Partial<ButtonOptions>) {
  const { modal, label = 'Connect Wallet', className = 'modalcore-connect-button', balance, avatar, network } = props;
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const host = ref.current;
    if (!host || !modal) return; // no modal yet (server rendering, before mount)
    return mountButtons(host, modal, { label, className, balance, avatar, network });
  }, [modal, label, className, balance, avatar, network]);
  return <span ref={ref} style={{ display: 'inline-flex', flexWrap: 'wrap', justifyContent: 'flex-end', gap: 8, alignItems: 'center', maxWidth: '100%' }} />;
}
