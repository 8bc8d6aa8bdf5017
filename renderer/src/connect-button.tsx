/**
 * `<ConnectButton modal={modal}/>`: "Connect Wallet", or once connected the account button
 * (avatar, address or name, balance) and, with `network`, a network button; opens the modal.
 * What each part says is the engine's (host events `account` and `network`).
 *
 * Before there is a modal (server rendering, the first client render, before `ModalProvider`'s
 * effect), React draws the same "Connect Wallet" button as button-view.ts does, with the same
 * class and style, so the button is in the first paint and nothing moves when the modal comes
 * (issue 40 item 8); a press on it then is kept and made once the modal is there.
 */
import { type CSSProperties, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { type ButtonOptions, mountButtons } from './button-view';
import type { Modal } from './host';

const OUTER: CSSProperties = { display: 'inline-flex', flexWrap: 'wrap', justifyContent: 'flex-end', gap: 8, alignItems: 'center', maxWidth: '100%' };
/** button-view.ts's ROW, and its press-while-loading look. */
const ROW: CSSProperties = { display: 'inline-flex', alignItems: 'center', gap: 8, whiteSpace: 'nowrap', maxWidth: '100%' };
const PRESSED: CSSProperties = { ...ROW, opacity: 0.7, cursor: 'progress' };
// no layout effect on a server (React 18 warns); before paint in the browser
const useBeforePaint = typeof window === 'undefined' ? useEffect : useLayoutEffect;

export function ConnectButton(props: { modal: Modal | null } & Partial<ButtonOptions>) {
  const { modal, label = 'Connect Wallet', className = 'modalcore-connect-button', balance, avatar, network } = props;
  const ref = useRef<HTMLSpanElement>(null);
  const [drawn, setDrawn] = useState(false);
  const [pressed, setPressed] = useState(false);
  const pressedEarly = useRef(false);
  useBeforePaint(() => {
    const host = ref.current;
    if (!host || !modal) return; // no modal yet (server rendering, before mount): the placeholder
    const off = mountButtons(host, modal, { label, className, balance, avatar, network });
    setDrawn(true);
    if (pressedEarly.current) {
      pressedEarly.current = false;
      host.querySelector<HTMLElement>('button[part="button"]')?.click(); // the press, through the drawn button
    }
    return () => {
      off();
      host.replaceChildren();
      setDrawn(false); // the placeholder again while there is no modal (it is drawn again at once otherwise)
    };
  }, [modal, label, className, balance, avatar, network]);
  const press = () => {
    pressedEarly.current = true;
    setPressed(true);
  };
  return (
    <span style={OUTER}>
      <span ref={ref} style={{ display: 'contents' }} />
      {drawn ? null : (
        <button type="button" className={className} part="button" style={pressed ? PRESSED : ROW} aria-busy={pressed || undefined} onClick={press}>
          {label}
        </button>
      )}
    </span>
  );
}
