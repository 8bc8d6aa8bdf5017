// Small helpers shared by the node components: typed prop access, actions, pending hints.
import type { JSX } from 'react';
import type { PendingHint, RenderCtx, WireNode } from '../tree';

export interface NodeProps {
  node: WireNode;
  ctx: RenderCtx;
}
export type NodeComponent = (props: NodeProps) => JSX.Element | null;

type Props = WireNode['p'];

export const str = (p: Props, k: string, d = ''): string => {
  const v = p?.[k];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : d;
};
export const num = (p: Props, k: string, d: number): number => {
  const v = p?.[k];
  return typeof v === 'number' && Number.isFinite(v) ? v : d;
};
export const bool = (p: Props, k: string): boolean => p?.[k] === true;
export const opt = (p: Props, k: string): string | undefined => {
  const v = str(p, k);
  return v === '' ? undefined : v;
};

/** Does the node offer action `act` (its `on` map has the key)? */
export function offers(node: WireNode, act: string): boolean {
  const on = node.p?.on;
  return typeof on === 'object' && on !== null && Object.prototype.hasOwnProperty.call(on, act);
}

export const pendingOf = (ctx: RenderCtx, id: string): PendingHint | undefined => ctx.pending.get(id);

/** 'spinner' or 'busy' pending, or the node's own `busy` prop. */
export function isBusy(node: WireNode, ctx: RenderCtx): boolean {
  const h = pendingOf(ctx, node.id);
  return h === 'spinner' || h === 'busy' || bool(node.p, 'busy');
}

/** Sends `press` when the node offers it; returns the handler or undefined. */
export function pressHandler(node: WireNode, ctx: RenderCtx): (() => void) | undefined {
  if (!offers(node, 'press')) return undefined;
  const popup = str(node.p, 'popup');
  return () => {
    if (popup) openPopup(popup, ctx);
    ctx.send(node.id, 'press', {});
  };
}

/** The window a node's `popup` names (PROTOCOL.md): a path on the engine, opened in the press
 * itself, where the click's user activation allows a window (a frame cannot be given it); the
 * engine's page in that window does the rest. Anything but a path on the engine opens nothing. */
export const POPUP_NAME = 'modalcore-popup';
export const POPUP_FEATURES = 'popup,width=480,height=640';
export function openPopup(path: string, ctx: RenderCtx): boolean {
  const base = ctx.engine ?? (typeof location !== 'undefined' ? location.origin : undefined);
  if (!base || !path.startsWith('/') || path.startsWith('//') || typeof window === 'undefined') return false;
  try {
    const url = new URL(path, base);
    if (url.origin !== new URL(base).origin) return false;
    return window.open(url.toString(), POPUP_NAME, POPUP_FEATURES) !== null;
  } catch {
    return false; // a blocked or refused window: the engine's page offers its own button
  }
}

/** Text of the node usable as an accessible name. */
export function labelOf(node: WireNode): string {
  const p = node.p;
  return str(p, 'label') || str(p, 'title') || str(p, 'text') || str(p, 'name');
}

export const cx = (...parts: (string | false | null | undefined)[]): string => parts.filter(Boolean).join(' ');

/** Map protocol alignment words to CSS flex values. */
export function flexValue(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const m: Record<string, string> = {
    start: 'flex-start',
    end: 'flex-end',
    between: 'space-between',
    around: 'space-around',
    evenly: 'space-evenly',
  };
  return m[v] ?? v;
}
