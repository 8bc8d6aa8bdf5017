// The inspector's stage (`dist/inspect.js`, global `ModalInspect`): draws a recorded tree with
// the renderer's own components and stylesheet, no engine and no socket. Presses are reported
// to `onIntent` (the inspector shows them) and change nothing.
import { createElement } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { MODAL_CSS, ModalRoot } from '../src/components/index';
import type { PendingHint, RenderCtx, WireNode } from '../src/tree';

export interface Theme {
  mode?: string;
  vars?: Record<string, string>;
}

export interface Stage {
  draw(tree: WireNode | null, theme: Theme): void;
  destroy(): void;
}

const NO_PENDING: ReadonlyMap<string, PendingHint> = new Map();

// The stage is the viewport the modal lays itself out in (the host's `--stage-height`, not the window's):
// the card's top and height cap follow it, so a tall card's body scrolls inside the stage and its
// bottom (the snackbar, the last rows) stays reachable, as on a phone of that height.
const STAGE_CSS = `.wm-root { --wm-top: 16px; }
.wm-overlay .wm-card { max-height: min(calc(var(--stage-height, 600px) - 32px), 680px); }`;

/** A stage in `host` (a shadow root holding the modal's CSS, like the host page's). Give the
 * host `transform: translateZ(0)` so the modal's fixed overlay stays inside it. */
export function stage(host: HTMLElement, onIntent?: (node: string, act: string, args: Record<string, unknown>) => void): Stage {
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  shadow.replaceChildren();
  const style = document.createElement('style');
  style.textContent = MODAL_CSS + STAGE_CSS;
  const point = document.createElement('div');
  point.setAttribute('data-modalcore-root', '');
  shadow.append(style, point);
  const root = createRoot(point);
  return {
    draw(tree, theme) {
      const ctx: RenderCtx = {
        send: (node, act, args) => onIntent?.(node, act, args ?? {}),
        pending: NO_PENDING,
        themeMode: theme.mode === 'light' ? 'light' : 'dark',
        themeVars: theme.vars ?? {},
      };
      flushSync(() => root.render(createElement(ModalRoot, { tree, ctx })));
    },
    destroy() {
      root.unmount();
    },
  };
}
