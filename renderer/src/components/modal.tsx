// The root `modal` node: overlay, card, header, views, alerts, snackbar; focus trap, Escape,
// shake, open/close animations, animated height between views.
import { type CSSProperties, type JSX, type RefObject, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { RenderCtx, WireNode } from '../tree';
import { Spinner } from './icons';
import { BackTarget, headerTitle } from './layout';
import { renderNode } from './render';
import { bool, num, offers, str } from './util';

const FOCUSABLE = 'button:not([disabled]),[href],input:not([disabled]),select,textarea,[tabindex]:not([tabindex="-1"])';

/** The focused element, looking through shadow roots. */
function deepActive(): Element | null {
  let a: Element | null = document.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

const visibleEls = (root: HTMLElement, sel: string): HTMLElement[] =>
  Array.from(root.querySelectorAll<HTMLElement>(sel)).filter((el) => el.getClientRects().length > 0);

/** Arrow keys between list rows: up/down by position, left/right in document order. */
function moveInList(card: HTMLElement, from: HTMLElement, key: string): boolean {
  const rows = visibleEls(card, '[data-nav]:not([disabled])');
  const i = rows.indexOf(from);
  if (i < 0) return false;
  let to: HTMLElement | undefined;
  if (key === 'ArrowRight') to = rows[i + 1];
  else if (key === 'ArrowLeft') to = rows[i - 1];
  else {
    const r = from.getBoundingClientRect();
    const down = key === 'ArrowDown';
    let best = Infinity;
    for (const el of rows) {
      const q = el.getBoundingClientRect();
      const dy = down ? q.top - r.top : r.top - q.top;
      if (dy < 2) continue;
      const score = dy * 4 + Math.abs(q.left - r.left);
      if (score < best) {
        best = score;
        to = el;
      }
    }
  }
  if (!to) return false;
  to.focus();
  to.scrollIntoView?.({ block: 'nearest' });
  return true;
}

/** The body follows its content's height with a short transition. */
function useAutoHeight(body: RefObject<HTMLDivElement | null>, inner: RefObject<HTMLDivElement | null>, on: boolean): void {
  useLayoutEffect(() => {
    const b = body.current;
    const c = inner.current;
    if (!on || !b || !c || typeof ResizeObserver === 'undefined') return;
    let first = true;
    const ro = new ResizeObserver(() => {
      const h = c.offsetHeight;
      if (h === 0) return;
      b.style.height = `${h}px`;
      if (first) {
        first = false;
        requestAnimationFrame(() => b.setAttribute('data-anim', ''));
      }
    });
    ro.observe(c);
    return () => {
      ro.disconnect();
      b.removeAttribute('data-anim');
      b.style.height = '';
    };
  }, [on, body, inner]);
}

/**
 * The opening fade (backdrop 100 ms; card 120 ms, rising on desktop, sliding up as a sheet on a
 * phone), played with the Web Animations API and started at the current frame's time: the card's
 * first frame after the click already shows the fade under way (a CSS animation would wait a
 * frame before it starts), and it ends ~120 ms after the click.
 */
function playOpening(overlay: HTMLElement | null, frame: HTMLElement | null): void {
  if (!overlay || !frame || typeof overlay.animate !== 'function') return;
  if (typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches) return;
  const sheet = typeof matchMedia === 'function' && matchMedia('(max-width: 430px)').matches;
  const now = document.timeline?.currentTime ?? null;
  const run = (el: HTMLElement, keyframes: Keyframe[], duration: number): void => {
    const a = el.animate(keyframes, { duration, easing: 'cubic-bezier(0.2, 0.8, 0.2, 1)' });
    if (now !== null) a.startTime = now;
  };
  run(overlay, [{ opacity: 0 }, { opacity: 1 }], 100);
  run(frame, sheet ? [{ transform: 'translateY(40%)', opacity: 0 }, { transform: 'none', opacity: 1 }]
    : [{ transform: 'translateY(6px) scale(0.97)', opacity: 0 }, { transform: 'none', opacity: 1 }], 120);
}

const UNIT: Record<string, string> = {
  '--w3m-color-mix-strength': '%',
  '--w3m-font-size-master': 'px',
  '--w3m-border-radius-master': 'px',
  '--w3m-modal-width': 'px',
};

/** Theme variables as inline custom properties; bare numbers get their unit (AppKit accepts them). */
function themeStyle(themeVars: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(themeVars)) {
    if (!k.startsWith('--')) continue;
    const s = String(v).trim();
    out[k] = UNIT[k] !== undefined && /^-?\d+(\.\d+)?$/.test(s) ? s + UNIT[k] : s;
  }
  return out;
}

export function ModalRoot(props: { tree: WireNode | null; ctx: RenderCtx; localOpen?: boolean }): JSX.Element {
  const { ctx } = props;
  let tree = props.tree;
  const p = tree?.p;
  const embedded = bool(p, 'embedded');
  const closable = p?.closable !== false;
  let closing = false;
  let back: string | null = null;
  for (const h of ctx.pending.values()) {
    if (h === 'close') closing = true;
    else if (typeof h === 'object') back = h.back;
  }
  const visible = tree !== null && (embedded || ((bool(p, 'open') || props.localOpen === true) && !(closing && closable)));

  // Open / closing / closed, keeping the DOM mounted (prepared) while closed.
  const [shown, setShown] = useState(visible);
  useEffect(() => {
    if (visible) {
      setShown(true);
      return;
    }
    const t = setTimeout(() => setShown(false), 120);
    return () => clearTimeout(t);
  }, [visible]);
  const state = visible ? 'open' : shown ? 'closing' : 'closed';
  // While it fades out, the card keeps what it showed (the engine already prepares the next opening).
  const held = useRef(tree);
  if (visible) held.current = tree;
  else if (shown) tree = held.current;
  const kids = tree?.c ?? [];
  const backView = kids.find((k) => k.id === back && k.t === 'view');
  if (!backView) back = null;

  // Shake: each increment of the counter plays the 500 ms animation once.
  const shake = num(p, 'shake', 0);
  const lastShake = useRef(shake);
  const [shaking, setShaking] = useState<number | null>(null);
  useEffect(() => {
    if (shake <= lastShake.current) {
      lastShake.current = shake;
      return;
    }
    lastShake.current = shake;
    setShaking(shake % 2);
    const t = setTimeout(() => setShaking(null), 500);
    return () => clearTimeout(t);
  }, [shake]);

  const card = useRef<HTMLDivElement>(null);
  const overlayRef = useRef<HTMLDivElement>(null);
  const frameRef = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (visible && !embedded) playOpening(overlayRef.current, frameRef.current);
  }, [visible, embedded]);
  const downOnOverlay = useRef(false);
  const body = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLDivElement>(null);
  useAutoHeight(body, inner, visible);

  const requestClose = (): void => {
    if (tree && offers(tree, 'close')) ctx.send(tree.id, 'close', {});
  };
  const closeRef = useRef(requestClose);
  closeRef.current = requestClose;

  // Focus: into the card on open, back to where it was on close.
  useEffect(() => {
    if (!visible || embedded) return;
    const before = deepActive();
    const c = card.current;
    if (c && !c.contains(before)) {
      const af = c.querySelector<HTMLElement>('[data-autofocus]');
      (af ?? c).focus({ preventScroll: true });
    }
    return () => {
      if (before instanceof HTMLElement && before.isConnected) before.focus({ preventScroll: true });
    };
  }, [visible, embedded]);

  // Focus lost (the focused node was removed by a patch): bring it back to the card.
  useEffect(() => {
    if (!visible || embedded) return;
    const a = deepActive();
    if (a === null || a === document.body) card.current?.focus({ preventScroll: true });
  });

  // Keys: Escape, Tab trap, arrows between list rows.
  useEffect(() => {
    if (!visible) return;
    const onKey = (e: KeyboardEvent): void => {
      const c = card.current;
      if (!c || e.defaultPrevented) return;
      const a = deepActive();
      const inside = a instanceof HTMLElement && c.contains(a);
      if (embedded && !inside) return;
      if (e.key === 'Escape' && !embedded && !e.isComposing) {
        e.preventDefault();
        closeRef.current();
      } else if (e.key === 'Tab' && !embedded) {
        const items = visibleEls(c, FOCUSABLE);
        const first = items[0];
        const last = items[items.length - 1];
        if (!first || !last) {
          e.preventDefault();
          c.focus();
        } else if (e.shiftKey && (a === first || a === c || !inside)) {
          e.preventDefault();
          last.focus();
        } else if (!e.shiftKey && (a === last || !inside)) {
          e.preventDefault();
          first.focus();
        }
      } else if (e.key.startsWith('Arrow') && inside && a.hasAttribute('data-nav')) {
        if (moveInList(c, a, e.key)) e.preventDefault();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [visible, embedded]);

  const vars = themeStyle(ctx.themeVars);
  const rootProps = {
    className: 'wm-root',
    'data-theme': ctx.themeMode === 'light' ? 'light' : 'dark',
    'data-embedded': embedded || undefined,
    // the engine's language and writing direction (absent: English, left to right)
    dir: str(p, 'dir') === 'rtl' ? 'rtl' : 'ltr',
    lang: str(p, 'lang') || 'en',
    style: vars as CSSProperties,
  };
  if (!tree) return <div {...rootProps} />;

  let header = kids.find((k) => k.t === 'header' && !bool(k.p, 'hidden'));
  // A back hint shows the previous view with its own title.
  const backTitle = backView?.p?.title;
  if (header && typeof backTitle === 'string') {
    header = { ...header, p: { ...header.p, title: backTitle }, c: header.c?.map((k) => (k.t === 'text' ? { ...k, p: { ...k.p, text: backTitle } } : k)) };
  }
  const title = header ? headerTitle(header) : '';
  const alerts = kids.filter((k) => k.t === 'alert');
  const snacks = kids.filter((k) => k.t === 'snackbar');
  const content = kids.filter((k) => k.t !== 'header' && k.t !== 'alert' && k.t !== 'snackbar');
  const anyView = content.some((k) => k.t !== 'view' || (back !== null ? k.id === back : !bool(k.p, 'hidden')));
  const loading = bool(tree.p, 'loading');

  const dialog = (
    <div
      ref={card}
      className="wm-card"
      role="dialog"
      aria-modal={embedded ? undefined : true}
      aria-label={title || str(tree.p, 'label') || 'Connect wallet'}
      aria-busy={loading || undefined}
      tabIndex={-1}
      data-shake={shaking ?? undefined}
      data-view={str(tree.p, 'view') || undefined}
    >
      {loading && <div className="wm-progress" aria-hidden="true" />}
      {header && renderNode(header, ctx)}
      <div ref={body} className="wm-body">
        <div ref={inner} className="wm-body-inner">
          {alerts.length > 0 && <div className="wm-alerts">{alerts.map((k) => renderNode(k, ctx))}</div>}
          <BackTarget.Provider value={back}>{content.map((k) => renderNode(k, ctx))}</BackTarget.Provider>
          {!anyView && (
            <div className="wm-view wm-loading">
              <Spinner size={28} />
            </div>
          )}
        </div>
      </div>
      {snacks.map((k) => renderNode(k, ctx))}
    </div>
  );

  if (embedded) {
    return (
      <div {...rootProps} data-state="open">
        {dialog}
      </div>
    );
  }
  return (
    <div {...rootProps}>
      <div
        ref={overlayRef}
        className="wm-overlay"
        data-state={state}
        onMouseDown={(e) => {
          downOnOverlay.current = e.target === e.currentTarget;
        }}
        onClick={(e) => {
          if (downOnOverlay.current && e.target === e.currentTarget) requestClose();
          downOnOverlay.current = false;
        }}
      >
        <div ref={frameRef} className="wm-frame">
          {dialog}
        </div>
      </div>
    </div>
  );
}
