/**
 * `<modalcore-button project-id="..." networks="eip155:1,eip155:137">` for pages without React.
 * It uses the live modal of its project id (or creates one); assign `modal` to pick another.
 * Options as attributes: `label`, `balance="hide"`, `avatar="hide"`, `network="show"` (a network
 * button before the account button). What the parts say comes from the engine.
 */
import { mountButtons } from './button-view';
import type { Modal, ModalOptions } from './host';
import { liveModals } from './live-modals';

/** How the element makes a modal when its project has none live: the entry that defined it says
 * (the full bundle: host.ts's createModal; the loader and the npm package: a lazy one). */
let makeModal: ((options: ModalOptions) => Modal) | null = null;

const STYLE = `:host{display:inline-flex;gap:8px}button{font:600 14px/1 system-ui,sans-serif;padding:10px 16px;border-radius:12px;border:1px solid
rgba(0,0,0,.1);background:var(--modalcore-button-bg,#1f6fd1);color:var(--modalcore-button-fg,#fff);cursor:pointer}`;

function modalFor(element: HTMLElement): Modal {
  const projectId = element.getAttribute('project-id') ?? 'demo';
  const live = liveModals.get(projectId);
  if (live) return live;
  const networks = (element.getAttribute('networks') ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  const engineUrl = element.getAttribute('engine-url') ?? undefined;
  if (!makeModal) throw new Error('modalcore: defineButtonElement was never given a createModal');
  return makeModal({ projectId, networks, engineUrl });
}

export function defineButtonElement(name = 'modalcore-button', create?: (options: ModalOptions) => Modal): void {
  if (create) makeModal ??= create;
  if (typeof customElements === 'undefined' || customElements.get(name)) return;

  class ModalcoreButton extends HTMLElement {
    modal: Modal | null = null;
    private unsubscribe: (() => void) | null = null;
    private holder: HTMLElement | null = null;

    connectedCallback(): void {
      if (!this.holder) {
        const shadow = this.attachShadow({ mode: 'open' });
        const style = document.createElement('style');
        style.textContent = STYLE;
        this.holder = document.createElement('span');
        this.holder.style.cssText = 'display:inline-flex;gap:8px';
        shadow.append(style, this.holder);
      }
      const modal = (this.modal ??= modalFor(this));
      const opts = {
        label: this.getAttribute('label') ?? 'Connect Wallet',
        balance: this.getAttribute('balance') !== 'hide',
        avatar: this.getAttribute('avatar') !== 'hide',
        network: this.getAttribute('network') === 'show',
        className: 'b',
      };
      this.unsubscribe = mountButtons(this.holder, modal, opts);
    }

    disconnectedCallback(): void {
      this.unsubscribe?.();
      this.unsubscribe = null;
    }
  }

  customElements.define(name, ModalcoreButton);
}
