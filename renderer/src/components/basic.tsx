// Leaf nodes: text, button, link, icon, image, avatar, chip, spinner, separator, alert,
// skeleton, checkbox.
import { type JSX, createContext, useContext, useState } from 'react';
import { avatarGradient } from './avatar';
import { Icon, Spinner } from './icons';
import { type NodeProps, bool, cx, isBusy, labelOf, num, offers, opt, pressHandler, str } from './util';

/** Local state that follows the server's value whenever the server's value changes. */
export function useAdopted<T>(server: T): [T, (v: T) => void] {
  const [s, set] = useState({ server, local: server });
  let cur = s;
  if (!Object.is(s.server, server)) {
    cur = { server, local: server };
    set(cur);
  }
  return [cur.local, (local: T) => set({ server, local })];
}

const SAFE_URL = /^(https?:|mailto:)/i;
const IMG_URL = /^(https?:|data:image\/|blob:|\/)/i;

/** The engine's base URL: an image path (`/icons/…`, PROTOCOL.md "Tree nodes") is on the engine. */
export const EngineBase = createContext<string | undefined>(undefined);

export function Img(props: {
  src?: string;
  alt: string;
  size?: number;
  round?: boolean;
  className?: string;
  /** Fetched once it scrolls into view (the engine marks images not to fetch at once). */
  lazy?: boolean;
  /** Beside the text it shows (a network's mark): hidden from the accessible name. */
  deco?: boolean;
}): JSX.Element {
  const [failed, setFailed] = useState<string | null>(null);
  const base = useContext(EngineBase);
  const { alt, size, round } = props;
  const src = base && props.src && /^\/(?!\/)/.test(props.src) ? new URL(props.src, base).href : props.src;
  const style = size
    ? { width: size, height: size, borderRadius: round ? '50%' : `calc(var(--wm-rm) * ${(size * 0.07).toFixed(2)})` }
    : round
      ? { borderRadius: '50%' }
      : undefined;
  const cls = cx('wm-img', props.className);
  if (!src || failed === src || !IMG_URL.test(src)) {
    const letter = (alt.trim()[0] ?? '?').toUpperCase();
    return (
      <span className={cx(cls, 'wm-mono')} style={{ ...style, fontSize: size ? Math.round(size * 0.42) : undefined }} role={props.deco ? undefined : 'img'} aria-label={props.deco ? undefined : alt} aria-hidden={props.deco || undefined}>
        {letter}
      </span>
    );
  }
  return (
    <img
      className={cls}
      style={style}
      src={src}
      alt={props.deco ? '' : alt}
      width={size}
      height={size}
      decoding="async"
      loading={props.lazy ? 'lazy' : undefined}
      draggable={false}
      referrerPolicy="no-referrer"
      onError={() => setFailed(src)}
    />
  );
}

export function Text({ node }: NodeProps): JSX.Element {
  const variant = str(node.p, 'variant', 'body');
  const text = str(node.p, 'text');
  // an empty title (Account's header) is no heading: axe's empty-heading (issue 39 item 9)
  const Tag = variant === 'title' && text !== '' ? 'h2' : 'p';
  return (
    <Tag className="wm-text" data-v={variant} data-tone={opt(node.p, 'tone')}>
      {text}
    </Tag>
  );
}

export function Button({ node, ctx }: NodeProps): JSX.Element {
  const p = node.p;
  const text = str(p, 'text');
  const icon = opt(p, 'icon');
  const image = opt(p, 'image');
  const busy = isBusy(node, ctx);
  const press = pressHandler(node, ctx);
  const iconOnly = !text && (icon ?? image) !== undefined;
  return (
    <button
      type="button"
      className={cx('wm-btn', iconOnly && 'wm-btn-icon')}
      data-v={str(p, 'variant', 'main')}
      disabled={bool(p, 'disabled')}
      aria-disabled={busy || !press || undefined}
      aria-busy={busy || undefined}
      aria-pressed={p?.pressed === undefined ? undefined : bool(p, 'pressed')}
      aria-label={str(p, 'label') || (iconOnly ? icon : undefined)}
      onClick={busy ? undefined : press}
    >
      <span className="wm-btn-label">
        {image !== undefined ? <Img src={image} alt="" size={24} /> : icon !== undefined && <Icon name={icon} size={iconOnly ? 20 : 16} />}
        {text && <span>{text}</span>}
      </span>
      {busy && (
        <span className="wm-btn-spin">
          <Spinner size={18} />
        </span>
      )}
    </button>
  );
}

export function Link({ node, ctx }: NodeProps): JSX.Element {
  const text = str(node.p, 'text');
  const href = opt(node.p, 'href');
  const press = pressHandler(node, ctx);
  const busy = isBusy(node, ctx);
  if (href !== undefined && SAFE_URL.test(href)) {
    return (
      <a className="wm-link" href={href} target="_blank" rel="noopener noreferrer" onClick={press}>
        {text}
        <Icon name="external" size={12} />
      </a>
    );
  }
  return (
    <button type="button" className="wm-link" onClick={busy ? undefined : press} aria-busy={busy || undefined}>
      {text}
      {busy && <Spinner size={12} />}
    </button>
  );
}

export function IconNode({ node }: NodeProps): JSX.Element {
  const name = str(node.p, 'name');
  const size = num(node.p, 'size', 20);
  return (
    <span className="wm-icon-node" data-badge={bool(node.p, 'badge') || undefined} data-tone={opt(node.p, 'tone')} role={node.p?.label ? 'img' : undefined} aria-label={opt(node.p, 'label')}>
      {name === 'spinner' ? <Spinner size={size} /> : <Icon name={name} size={size} />}
    </span>
  );
}

export function ImageNode({ node }: NodeProps): JSX.Element {
  const p = node.p;
  return <Img src={opt(p, 'src')} alt={str(p, 'alt') || labelOf(node)} size={num(p, 'size', 40)} round={bool(p, 'round')} />;
}

export function Avatar({ node }: NodeProps): JSX.Element {
  const p = node.p;
  const address = str(p, 'address');
  const size = num(p, 'size', 64);
  const image = opt(p, 'image');
  const [broken, setBroken] = useState<string | null>(null);
  return (
    <span
      className="wm-avatar"
      style={{ width: size, height: size, background: avatarGradient(address) }}
      role="img"
      aria-label={str(p, 'label') || address}
    >
      {image !== undefined && broken !== image && IMG_URL.test(image) && (
        <img src={image} alt="" width={size} height={size} decoding="async" onError={() => setBroken(image)} />
      )}
    </span>
  );
}

export function Chip({ node, ctx }: NodeProps): JSX.Element {
  const p = node.p;
  const text = str(p, 'text');
  const image = opt(p, 'image');
  const icon = opt(p, 'icon');
  const press = pressHandler(node, ctx);
  const busy = isBusy(node, ctx);
  const inner = (
    <>
      {image !== undefined ? <Img src={image} alt="" size={24} round /> : icon !== undefined ? <Icon name={icon} size={16} /> : null}
      <span className="wm-chip-text">{text}</span>
      {busy && <Spinner size={14} />}
    </>
  );
  const lead = image !== undefined ? 'img' : icon !== undefined ? 'icon' : undefined;
  if (!press) return <span className="wm-chip" data-lead={lead}>{inner}</span>;
  return (
    <button type="button" className="wm-chip" data-lead={lead} aria-label={opt(p, 'label')} onClick={busy ? undefined : press}>
      {inner}
    </button>
  );
}

export function SpinnerNode({ node }: NodeProps): JSX.Element {
  return (
    <span className="wm-spinner-node" role="progressbar" aria-label={str(node.p, 'label') || 'Loading'}>
      <Spinner size={num(node.p, 'size', 24)} />
    </span>
  );
}

export function Separator({ node }: NodeProps): JSX.Element {
  const text = str(node.p, 'text');
  return (
    <div className="wm-sep" role="separator" aria-label={text || undefined}>
      {text}
    </div>
  );
}

const ALERT_ICON: Record<string, string> = { error: 'error', warning: 'warning', info: 'info' };

export function Alert({ node, ctx }: NodeProps): JSX.Element {
  const variant = str(node.p, 'variant', 'info');
  return (
    <div className="wm-alert" data-variant={variant} role={variant === 'info' ? 'status' : 'alert'}>
      <span className="wm-alert-ic">
        <Icon name={ALERT_ICON[variant] ?? 'info'} size={18} />
      </span>
      <div className="wm-alert-body">
        <p className="wm-alert-title">{str(node.p, 'title')}</p>
        <p className="wm-alert-msg">{str(node.p, 'message')}</p>
      </div>
      {offers(node, 'close') && (
        <button type="button" className="wm-alert-x" aria-label="Dismiss" onClick={() => ctx.send(node.id, 'close', {})}>
          <Icon name="close" size={14} />
        </button>
      )}
    </div>
  );
}

export function Skeleton({ node }: NodeProps): JSX.Element {
  const w = num(node.p, 'w', 0);
  const h = num(node.p, 'h', 16);
  return (
    <span
      className="wm-skel"
      aria-hidden="true"
      style={{ width: w > 0 ? w : '100%', height: h, borderRadius: bool(node.p, 'round') ? '50%' : undefined }}
    />
  );
}

export function Checkbox({ node, ctx }: NodeProps): JSX.Element {
  const [checked, setChecked] = useAdopted(bool(node.p, 'checked'));
  const can = offers(node, 'toggle');
  return (
    <label className="wm-check" data-disabled={!can || undefined}>
      <input
        type="checkbox"
        checked={checked}
        disabled={!can}
        onChange={(e) => {
          const v = e.currentTarget.checked;
          setChecked(v);
          ctx.send(node.id, 'toggle', { checked: v });
        }}
      />
      <span className="wm-check-box" aria-hidden="true">
        <Icon name="check" size={14} />
      </span>
      <span className="wm-check-text">{str(node.p, 'text')}</span>
    </label>
  );
}
