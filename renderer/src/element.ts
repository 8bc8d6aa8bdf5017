/**
 * `<modalcore-button project-id="..." networks="eip155:1,eip155:137">` for pages without React.
 * It uses the live modal of its project id (or creates one); assign `modal` to pick another.
 */
import { connectedAddress, connectedLabel } from './connect-button';
import { type Modal, createModal, liveModals } from './host';

const STYLE = `button{font:600 14px/1 system-ui,sans-serif;padding:10px 16px;border-radius:12px;border:1px solid
rgba(0,0,0,.1);background:var(--modalcore-button-bg,#3396ff);color:var(--modalcore-button-fg,#fff);cursor:pointer}`;

function modalFor(element: HTMLElement): Modal {
  const projectId = element.getAttribute('project-id') ?? 'demo';
  const live = liveModals.get(projectId);
  if (live) return live;
  const networks = (element.getAttribute('networks') ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  const engineUrl = element.getAttribute('engine-url') ?? undefined;
  return createModal({ projectId, networks, engineUrl });
}

export function defineButtonElement(name = 'modalcore-button'): void {
  if (typeof customElements === 'undefined' || customElements.get(name)) return;

  class ModalcoreButton extends HTMLElement {
    modal: Modal | null = null;
    private unsubscribe: (() => void) | null = null;
    private button: HTMLButtonElement | null = null;

    connectedCallback(): void {
      if (!this.button) {
        const shadow = this.attachShadow({ mode: 'open' });
        const style = document.createElement('style');
        style.textContent = STYLE;
        this.button = document.createElement('button');
        this.button.type = 'button';
        this.button.part.add('button');
        this.button.addEventListener('click', () => void this.modal?.open());
        shadow.append(style, this.button);
      }
      this.modal ??= modalFor(this);
      const label = this.getAttribute('label') ?? 'Connect Wallet';
      this.button.textContent = label;
      this.unsubscribe = this.modal.subscribeAccount((account) => {
        if (!this.button) return;
        this.button.textContent = connectedLabel(account) || label;
        this.button.title = connectedAddress(account);
      });
    }

    disconnectedCallback(): void {
      this.unsubscribe?.();
      this.unsubscribe = null;
    }
  }

  customElements.define(name, ModalcoreButton);
}
