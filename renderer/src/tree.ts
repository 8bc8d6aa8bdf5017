/** Shapes shared by the renderer core and the components (PROTOCOL.md, "Tree nodes"). */

/** One node of the view tree exactly as it travels on the wire. */
export type WireNode = { id: string; t: string; p?: Record<string, unknown>; c?: WireNode[] };

/** What the renderer shows at once for a pressed action, before the engine answers. */
export type PendingHint = 'spinner' | 'busy' | 'close' | { back: string };

/** What every component receives besides its node. */
export interface RenderCtx {
  /** Sends an intent; applies the node's pending hint for `act` at once. */
  send(nodeId: string, act: string, args?: Record<string, unknown>): void;
  /** node id -> pending hint applied locally until the engine answers. */
  pending: ReadonlyMap<string, PendingHint>;
  themeMode: 'light' | 'dark';
  themeVars: Record<string, string>;
  /** The engine's base URL (a `frame` node's `src` is a path on it). */
  engine?: string;
}

/** The virtual node that offers the host API calls (PROTOCOL.md, "Intents"). */
export const HOST_NODE = 'host';

export function isWireNode(value: unknown): value is WireNode {
  if (typeof value !== 'object' || value === null) return false;
  const node = value as Record<string, unknown>;
  return typeof node.id === 'string' && typeof node.t === 'string';
}

/** The pending hint a node declares for an action (its `on` prop), or null. */
export function pendingHintOf(node: WireNode | undefined, act: string): PendingHint | null {
  const on = node?.p?.on;
  if (typeof on !== 'object' || on === null) return null;
  const hint = (on as Record<string, unknown>)[act];
  if (hint === 'spinner' || hint === 'busy' || hint === 'close') return hint;
  if (typeof hint === 'object' && hint !== null) {
    const back = (hint as Record<string, unknown>).back;
    if (typeof back === 'string') return { back };
  }
  return null;
}

/** Every node of a tree by id. */
export function indexTree(root: WireNode | null): Map<string, WireNode> {
  const index = new Map<string, WireNode>();
  const stack: WireNode[] = root ? [root] : [];
  for (let node = stack.pop(); node; node = stack.pop()) {
    index.set(node.id, node);
    if (node.c) stack.push(...node.c);
  }
  return index;
}
