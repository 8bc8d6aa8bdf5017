// frame: a page of the engine's own origin in a cross-origin iframe (the embedded wallet's
// approval, PROTOCOL.md "Tree nodes"). `src` is a path on the engine; the host page can neither
// read nor click inside the frame: the frame's own page talks to the engine.
import type { JSX } from 'react';
import { type NodeProps, num, str } from './util';

export function Frame({ node, ctx }: NodeProps): JSX.Element {
  const p = node.p;
  const path = str(p, 'src');
  const base = ctx.engine ?? (typeof location !== 'undefined' ? location.origin : undefined);
  const src = base ? new URL(path, base).toString() : path;
  return (
    <iframe
      className="wm-frame"
      src={src}
      title={str(p, 'title')}
      aria-label={str(p, 'label') || str(p, 'title')}
      hidden={p?.hidden === true || undefined}
      data-busy={p?.busy === true || undefined}
      style={{ width: '100%', height: `${num(p, 'height', 400)}px`, border: 0, colorScheme: 'normal' }}
    />
  );
}
