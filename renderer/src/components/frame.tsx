// frame: a page of the engine's own origin in a cross-origin iframe (the embedded wallet's
// approval, PROTOCOL.md "Tree nodes"). `src` is a path on the engine; the host page can neither
// read nor click inside the frame: the frame's own page talks to the engine.
// The frame's page posts its height ({modalcore: 'frame-height', height}); the iframe takes it,
// between MIN_HEIGHT and the node's `height`, so no blank stays under what it shows. Only a
// message from that very iframe's window and the engine's origin counts.
// The iframe always sends its page's origin as the referrer (even under a host page's
// no-referrer policy): the engine and the frame check the page that shows them is the session's
// (modalcore/server/approval_guard.py). It may use passkeys (issue 43: WebAuthn runs in the frame,
// for the engine as relying party).
import { type JSX, useEffect, useRef, useState } from 'react';
import { type NodeProps, num, str } from './util';

const MIN_HEIGHT = 64; // a frame of one button (Open Farcaster on a phone) takes no more

export function Frame({ node, ctx }: NodeProps): JSX.Element {
  const p = node.p;
  const path = str(p, 'src');
  const base = ctx.engine ?? (typeof location !== 'undefined' ? location.origin : undefined);
  const src = base ? new URL(path, base).toString() : path;
  const max = num(p, 'height', 400);
  const ref = useRef<HTMLIFrameElement>(null);
  const [fit, setFit] = useState<number | null>(null);
  useEffect(() => {
    let origin = '';
    try {
      origin = new URL(src).origin;
    } catch {
      return undefined;
    }
    const onMessage = (e: MessageEvent): void => {
      const d: unknown = e.data;
      if (e.source !== ref.current?.contentWindow || e.origin !== origin || typeof d !== 'object' || d === null) return;
      const { modalcore, height } = d as { modalcore?: unknown; height?: unknown };
      if (modalcore !== 'frame-height' || typeof height !== 'number' || !Number.isFinite(height)) return;
      setFit(Math.round(Math.min(Math.max(height, MIN_HEIGHT), max)));
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [src, max]);
  return (
    <iframe
      ref={ref}
      className="wm-frame"
      src={src}
      referrerPolicy="origin"
      title={str(p, 'title')}
      allow="clipboard-write; publickey-credentials-get; publickey-credentials-create"
      aria-label={str(p, 'label') || str(p, 'title')}
      hidden={p?.hidden === true || undefined}
      data-busy={p?.busy === true || undefined}
      style={{ width: '100%', height: `${fit ?? max}px`, border: 0, colorScheme: 'normal' }}
    />
  );
}
