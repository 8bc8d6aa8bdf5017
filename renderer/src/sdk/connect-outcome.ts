/** How a connect attempt through the modal ends (the wagmi connector's `connect()`). */
import type { Modal, Unsubscribe } from '../host';
import type { AccountState, ModalState } from '../host-events';

/** The account once connected, or null when the modal closes without one. The state event that
 * closes the modal says in itself whether an account is connected (`connected`); the account
 * event of that step comes after it, so no waiting is needed to tell the two apart. */
export function untilConnectedOrClosed(m: Pick<Modal, 'subscribeAccount' | 'subscribeState'>): Promise<AccountState | null> {
  return new Promise((resolve) => {
    let opened = false;
    let done = false;
    const offs: Unsubscribe[] = [];
    const finish = (outcome: AccountState | null) => {
      if (done) return;
      done = true;
      for (const off of offs) off();
      resolve(outcome);
    };
    offs.push(m.subscribeAccount((a) => {
      if (a.isConnected) finish(a);
    }));
    offs.push(m.subscribeState((s) => {
      if (s.open) opened = true;
      else if (opened && !s.connected) finish(null);
    }));
    if (done) for (const off of offs) off();
  });
}

/** The engine's first state, or a rejection as soon as the modal reports that the engine cannot
 * be reached or refused the page (an `error` event: a refused origin said so at once, where
 * wagmi's connect() used to wait 10 s for "the engine did not answer"). */
export function untilReady(m: Pick<Modal, 'subscribeState' | 'subscribeError'>, timeoutMs: number): Promise<ModalState> {
  return new Promise((resolve, reject) => {
    let done = false;
    const offs: Unsubscribe[] = [];
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const off of offs) off();
      settle();
    };
    const timer = setTimeout(() => finish(() => reject(new Error('modalcore: the engine did not answer'))), timeoutMs);
    offs.push(m.subscribeState((s) => {
      if (s.initialized) finish(() => resolve(s));
    }));
    offs.push(m.subscribeError((e) => finish(() => reject(new Error(`modalcore: ${e.message || e.code}`)))));
    if (done) for (const off of offs) off();
  });
}
