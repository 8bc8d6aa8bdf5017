/**
 * Patch application by node id (PROTOCOL.md, "Patches"). Pure: a tree and ops in, a new tree
 * out; the input tree is never mutated and untouched subtrees keep their identity, so React can
 * skip them. Components never see ops: this file is the only place that knows the opcodes.
 */
import type { WireNode } from './tree';

export class PatchError extends Error {}

type Op = readonly unknown[];

/** A tree under change: parent links plus the set of nodes already copied for this patch. */
class Draft {
  root: WireNode;
  private parent = new Map<string, WireNode | null>();
  private node = new Map<string, WireNode>();
  private fresh = new Set<WireNode>();

  constructor(root: WireNode) {
    this.root = root;
    this.register(root, null);
  }

  register(node: WireNode, parent: WireNode | null): void {
    this.node.set(node.id, node);
    this.parent.set(node.id, parent);
    for (const child of node.c ?? []) this.register(child, node);
  }

  unregister(node: WireNode): void {
    this.node.delete(node.id);
    this.parent.delete(node.id);
    for (const child of node.c ?? []) this.unregister(child);
  }

  get(id: unknown): WireNode {
    const found = typeof id === 'string' ? this.node.get(id) : undefined;
    if (!found) throw new PatchError(`no node ${String(id)}`);
    return found;
  }

  /** A copy of node `id` owned by this patch, linked into a copied path from the root. */
  writable(id: unknown): WireNode {
    const current = this.get(id);
    if (this.fresh.has(current)) return current;
    const copy: WireNode = { ...current };
    if (current.p) copy.p = { ...current.p };
    if (current.c) copy.c = current.c.slice();
    this.fresh.add(copy);
    this.node.set(copy.id, copy);
    const parent = this.parent.get(copy.id) ?? null;
    for (const child of copy.c ?? []) this.parent.set(child.id, copy);
    if (parent === null) {
      this.root = copy;
    } else {
      const owner = this.writable(parent.id);
      const children = owner.c ?? [];
      children[children.indexOf(current)] = copy;
      this.parent.set(copy.id, owner);
    }
    return copy;
  }

  has(id: string): boolean {
    return this.node.has(id);
  }

  parentOf(id: string): WireNode | null {
    return this.parent.get(id) ?? null;
  }
}

function childIndex(value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new PatchError(`bad index ${String(value)}`);
  }
  return value;
}

function asNode(value: unknown): WireNode {
  if (typeof value !== 'object' || value === null) throw new PatchError('bad node');
  const node = value as WireNode;
  if (typeof node.id !== 'string' || typeof node.t !== 'string') throw new PatchError('bad node');
  return node;
}

function detach(draft: Draft, id: string): WireNode {
  const parent = draft.parentOf(id);
  if (!parent) throw new PatchError('cannot detach the root');
  const owner = draft.writable(parent.id);
  const children = owner.c ?? [];
  const at = children.findIndex((child) => child.id === id);
  if (at < 0) throw new PatchError(`${id} is not a child of ${owner.id}`);
  const [node] = children.splice(at, 1);
  if (children.length === 0) delete owner.c;
  return node as WireNode;
}

const HANDLERS: Record<number, (draft: Draft, op: Op) => void> = {
  // [0, parentId, index, node]
  0: (draft, op) => {
    const parent = draft.writable(op[1]);
    const children = (parent.c ??= []);
    const node = asNode(op[3]);
    if (draft.has(node.id)) throw new PatchError(`duplicate id ${node.id}`);
    children.splice(childIndex(op[2], children.length), 0, node);
    draft.register(node, parent);
  },
  // [1, id]
  1: (draft, op) => {
    const node = draft.get(op[1]);
    detach(draft, node.id);
    draft.unregister(node);
  },
  // [2, parentId, id, index]
  2: (draft, op) => {
    const parent = draft.get(op[1]);
    const node = draft.get(op[2]);
    if (draft.parentOf(node.id)?.id !== parent.id) throw new PatchError('move across parents');
    detach(draft, node.id);
    const owner = draft.writable(parent.id);
    const children = (owner.c ??= []);
    children.splice(childIndex(op[3], children.length), 0, node);
  },
  // [3, id, {key: value or nil}]
  3: (draft, op) => {
    const delta = op[2];
    if (typeof delta !== 'object' || delta === null) throw new PatchError('bad props');
    const node = draft.writable(op[1]);
    const props = (node.p ??= {});
    for (const [key, value] of Object.entries(delta)) {
      if (value === null || value === undefined) delete props[key];
      else props[key] = value;
    }
    if (Object.keys(props).length === 0) delete node.p;
  },
  // [4, id, node]
  4: (draft, op) => {
    const old = draft.get(op[1]);
    const node = asNode(op[2]);
    const parent = draft.parentOf(old.id);
    if (parent === null) {
      draft.unregister(old);
      draft.root = node;
      draft.register(node, null);
      return;
    }
    const owner = draft.writable(parent.id);
    draft.unregister(old);
    const children = owner.c ?? [];
    children[children.findIndex((child) => child.id === old.id)] = node;
    draft.register(node, owner);
  },
};

/** Applies `ops` in order to `tree`. Throws PatchError when they do not fit the tree. */
export function applyOps(tree: WireNode, ops: readonly unknown[]): WireNode {
  const draft = new Draft(tree);
  for (const op of ops) {
    if (!Array.isArray(op)) throw new PatchError('an op is a list');
    const handler = HANDLERS[op[0] as number];
    if (!handler) throw new PatchError(`unknown opcode ${String(op[0])}`);
    handler(draft, op);
  }
  return draft.root;
}
