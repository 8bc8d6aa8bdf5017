// Containers and chrome: view, stack (with the `more` sentinel), header, snackbar, qr (drawn from
// the modules the engine encoded).
import { type CSSProperties, type JSX, createContext, useContext, useEffect, useMemo, useRef } from 'react';
import type { WireNode } from '../tree';
import { Img } from './basic';
import { Icon, Spinner } from './icons';
import { renderChildren, renderNode } from './render';
import { type NodeProps, bool, flexValue, num, offers, opt, str } from './util';

/** The view a pending `{back: id}` hint shows instead of the current one (set by the modal). */
export const BackTarget = createContext<string | null>(null);

export function View({ node, ctx }: NodeProps): JSX.Element | null {
  const back = useContext(BackTarget);
  const shown = back !== null ? node.id === back : !bool(node.p, 'hidden');
  if (!shown) return null;
  return (
    <div className="wm-view" data-view={str(node.p, 'name')} key={str(node.p, 'name')}>
      {renderChildren(node, ctx)}
    </div>
  );
}

function More(props: { onMore: () => void; count: number }): JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  const cb = useRef(props.onMore);
  cb.current = props.onMore;
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    let fired = false;
    const io = new IntersectionObserver(
      (entries) => {
        if (!fired && entries.some((e) => e.isIntersecting)) {
          fired = true;
          cb.current();
        }
      },
      { root: el.closest('.wm-body'), rootMargin: '160px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [props.count]);
  return <div ref={ref} className="wm-more" aria-hidden="true" />;
}

const TILES = new Set(['wallet-item', 'network-item']);

export function Stack({ node, ctx }: NodeProps): JSX.Element {
  const p = node.p;
  const dir = str(p, 'dir', 'col') === 'row' ? 'row' : 'col';
  const kids = node.c ?? [];
  const grid = dir === 'row' && kids.length > 0 && kids.every((k) => TILES.has(k.t));
  const pad = opt(p, 'pad');
  const style: CSSProperties = {
    gap: num(p, 'gap', 0) || undefined,
    alignItems: flexValue(opt(p, 'align')),
    justifyContent: flexValue(opt(p, 'justify')),
    flexWrap: bool(p, 'wrap') ? 'wrap' : undefined,
    padding: pad !== undefined ? num(p, 'pad', 0) : undefined,
  };
  return (
    <div className="wm-stack" data-dir={dir} data-align={opt(p, 'align')} data-grid={grid || undefined} style={style} role={opt(p, 'label') ? 'group' : undefined} aria-label={opt(p, 'label')}>
      {kids.map((k) => renderNode(k, ctx))}
      {offers(node, 'more') && <More count={kids.length} onMore={() => ctx.send(node.id, 'more', {})} />}
    </div>
  );
}

/** The header's title text: its `title` prop or its first text child. */
export function headerTitle(node: WireNode): string {
  const t = str(node.p, 'title');
  if (t) return t;
  const text = node.c?.find((k) => k.t === 'text');
  return text ? str(text.p, 'text') : '';
}

export function Header({ node, ctx }: NodeProps): JSX.Element {
  const kids = (node.c ?? []).filter((k) => !bool(k.p, 'hidden'));
  const ti = kids.findIndex((k) => k.t === 'text');
  let left: WireNode[];
  let right: WireNode[];
  if (ti >= 0) {
    left = kids.slice(0, ti);
    right = kids.slice(ti + 1);
  } else {
    right = kids.filter((k) => str(k.p, 'icon') === 'close');
    left = kids.filter((k) => !right.includes(k));
  }
  const title = ti >= 0 ? renderNode(kids[ti], ctx) : <h2 className="wm-text">{str(node.p, 'title')}</h2>;
  return (
    <div className="wm-header">
      <div className="wm-header-l">{left.map((k) => renderNode(k, ctx))}</div>
      <div className="wm-header-c">{title}</div>
      <div className="wm-header-r">
        {right.map((k) => renderNode(k, ctx))}
        {kids.length === 0 && bool(node.p, 'close') && offers(node, 'close') && (
          <button type="button" className="wm-btn wm-btn-icon" data-v="ghost" aria-label="Close" onClick={() => ctx.send(node.id, 'close', {})}>
            <span className="wm-btn-label">
              <Icon name="close" size={20} />
            </span>
          </button>
        )}
      </div>
    </div>
  );
}

const SNACK_ICON: Record<string, string> = { success: 'check', error: 'close' };

export function Snackbar({ node }: NodeProps): JSX.Element {
  const variant = str(node.p, 'variant', 'success');
  const open = bool(node.p, 'open');
  return (
    <div className="wm-snack-slot" data-open={open || undefined}>
      <div className="wm-snack-clip">
        <div className="wm-snack" data-variant={variant} role="status" aria-live="polite">
          <span className="wm-snack-ic">
            {variant === 'loading' ? <Spinner size={14} /> : <Icon name={SNACK_ICON[variant] ?? 'info'} size={12} />}
          </span>
          <span className="wm-snack-msg">{str(node.p, 'message')}</span>
        </div>
      </div>
    </div>
  );
}

/** A QR code as the engine encoded it: `size` modules per side, row-major, dark = true. */
export interface QrMatrix {
  size: number;
  modules: boolean[];
}

/** The modules of the `qr` node's `bits` (4 per hex digit, most significant first); null when
 *  the props do not describe an n x n matrix. */
export function parseModules(n: number, bits: string): QrMatrix | null {
  if (!Number.isInteger(n) || n < 21 || n > 177 || bits.length !== Math.ceil((n * n) / 4) || !/^[0-9a-f]*$/.test(bits)) return null;
  const modules: boolean[] = new Array(n * n);
  for (let i = 0; i < n * n; i++) modules[i] = ((parseInt(bits[i >> 2], 16) >> (3 - (i & 3))) & 1) === 1;
  return { size: n, modules };
}

const rrect = (x: number, y: number, w: number, r: number): string =>
  `M${x + r} ${y}h${w - 2 * r}a${r} ${r} 0 0 1 ${r} ${r}v${w - 2 * r}a${r} ${r} 0 0 1 ${-r} ${r}h${2 * r - w}a${r} ${r} 0 0 1 ${-r} ${-r}v${2 * r - w}a${r} ${r} 0 0 1 ${r} ${-r}z`;

/** SVG markup parts for a matrix: finder eyes as rounded squares, data modules as dots. */
export function qrPaths(m: QrMatrix, logoModules: number): { dots: string; eyes: string } {
  const n = m.size;
  const lo = (n - logoModules) / 2;
  const hi = (n + logoModules) / 2;
  let dots = '';
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      if (!m.modules[y * n + x]) continue;
      const eye = (x < 8 && y < 8) || (x >= n - 8 && y < 8) || (x < 8 && y >= n - 8);
      if (eye) continue;
      if (logoModules > 0 && x + 1 > lo && x < hi && y + 1 > lo && y < hi) continue;
      dots += `M${x} ${y + 0.5}a.5.5 0 1 0 1 0a.5.5 0 1 0-1 0`;
    }
  }
  // Eyes keep nearly square corners: strongly rounded finders defeat some decoders.
  let eyes = '';
  for (const [x, y] of [[0, 0], [n - 7, 0], [0, n - 7]]) eyes += rrect(x, y, 7, 0.7) + rrect(x + 1, y + 1, 5, 0.35) + rrect(x + 2, y + 2, 3, 0.3);
  return { dots, eyes };
}

export function Qr({ node }: NodeProps): JSX.Element {
  const n = num(node.p, 'n', 0);
  const bits = str(node.p, 'bits');
  const size = num(node.p, 'size', 240);
  const image = opt(node.p, 'image');
  const m = useMemo(() => parseModules(n, bits), [n, bits]);
  const logo = m && image !== undefined ? Math.round(m.size * 0.22) | 1 : 0;
  const paths = useMemo(() => (m ? qrPaths(m, logo) : null), [m, logo]);
  const label = str(node.p, 'label') || 'QR code';
  if (!m || !paths) {
    return (
      <div className="wm-qr" style={{ width: size + 32, height: size + 32 }} role="img" aria-label={label}>
        <span className="wm-skel" style={{ width: size, height: size }} />
      </div>
    );
  }
  const px = (logo / m.size) * size;
  return (
    <div className="wm-qr" role="img" aria-label={label} title={label}>
      <svg width={size} height={size} viewBox={`0 0 ${m.size} ${m.size}`} aria-hidden="true" shapeRendering="geometricPrecision">
        <path d={paths.eyes} fill="currentColor" fillRule="evenodd" />
        <path d={paths.dots} fill="currentColor" />
      </svg>
      {image !== undefined && (
        <span className="wm-qr-logo" style={{ width: px, height: px }}>
          <Img src={image} alt="" size={Math.round(px * 0.86)} />
        </span>
      )}
    </div>
  );
}
