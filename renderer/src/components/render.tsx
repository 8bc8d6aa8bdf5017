// One component per node type (PROTOCOL.md, "Node vocabulary"), dispatched through one table.
import type { JSX } from 'react';
import type { NodeType } from '../nodes.gen';
import type { RenderCtx, WireNode } from '../tree';
import { Alert, Avatar, Button, Checkbox, Chip, IconNode, ImageNode, Link, Separator, Skeleton, SpinnerNode, Text } from './basic';
import { Frame } from './frame';
import { Input, OtpInput, Tabs } from './inputs';
import { ActivityItem, Group, ListItem, NetworkItem, TokenItem, WalletItem } from './items';
import { Header, Qr, Snackbar, Stack, View } from './layout';
import { ModalRoot } from './modal';
import type { NodeComponent, NodeProps } from './util';

function ModalNode({ node, ctx }: NodeProps): JSX.Element {
  return <ModalRoot tree={node} ctx={ctx} />;
}

// Keyed by the registry's node types (nodes.gen.ts): tsc fails on a type without a component
// or a component for a type the engine does not send.
const TABLE: Record<NodeType, NodeComponent> = {
  modal: ModalNode,
  view: View,
  stack: Stack,
  text: Text,
  button: Button,
  'list-item': ListItem,
  'wallet-item': WalletItem,
  image: ImageNode,
  icon: IconNode,
  input: Input,
  'otp-input': OtpInput,
  qr: Qr,
  tabs: Tabs,
  header: Header,
  snackbar: Snackbar,
  spinner: SpinnerNode,
  link: Link,
  checkbox: Checkbox,
  separator: Separator,
  avatar: Avatar,
  chip: Chip,
  alert: Alert,
  skeleton: Skeleton,
  'network-item': NetworkItem,
  'token-item': TokenItem,
  'activity-item': ActivityItem,
  group: Group,
  frame: Frame,
};

const warned = new Set<string>();

/** Draws one node; unknown types draw nothing (warned once), hidden nodes draw nothing. */
export function renderNode(node: WireNode, ctx: RenderCtx): JSX.Element | null {
  const C = Object.prototype.hasOwnProperty.call(TABLE, node.t) ? TABLE[node.t as NodeType] : undefined;
  if (C === undefined) {
    if (!warned.has(node.t)) {
      warned.add(node.t);
      console.warn(`[modalcore] unknown node type "${node.t}"`);
    }
    return null;
  }
  if (node.t !== 'view' && node.p?.hidden === true) return null;
  return <C key={node.id} node={node} ctx={ctx} />;
}

export function renderChildren(node: WireNode, ctx: RenderCtx): (JSX.Element | null)[] {
  return (node.c ?? []).map((k) => renderNode(k, ctx));
}
