// Row nodes: list-item, wallet-item, network-item, token-item, activity-item, and group.
import type { JSX, ReactNode } from 'react';
import { Img } from './basic';
import { Icon, Spinner } from './icons';
import { renderChildren } from './render';
import { type NodeProps, bool, cx, isBusy, labelOf, opt, pressHandler, str } from './util';

/** A row: a button when the node offers `press` (keyboard: Enter/Space, arrows via data-nav). */
function Row(props: NodeProps & { className: string; children: ReactNode; current?: boolean; tag?: string }): JSX.Element {
  const { node, ctx } = props;
  const press = pressHandler(node, ctx);
  const busy = isBusy(node, ctx);
  const disabled = bool(node.p, 'disabled');
  const cls = cx('wm-row', props.className);
  if (!press && !disabled) {
    return (
      <div className={cls} aria-busy={busy || undefined} data-tag={props.tag}>
        {props.children}
      </div>
    );
  }
  return (
    <button
      type="button"
      className={cls}
      data-nav=""
      data-tag={props.tag}
      disabled={disabled}
      aria-disabled={busy || undefined}
      aria-busy={busy || undefined}
      aria-current={props.current || undefined}
      aria-label={opt(node.p, 'label')}
      onClick={busy ? undefined : press}
    >
      {props.children}
    </button>
  );
}

/** The colour family of a tag or trailing label. */
export function tagKind(tag: string): string {
  const t = tag.toUpperCase();
  if (t === 'INSTALLED') return 'success';
  if (t === 'QR CODE' || t === 'RECOMMENDED') return 'accent';
  return 'neutral';
}

function Main(props: { title: string; sub?: string }): JSX.Element {
  return (
    <span className="wm-row-main">
      <span className="wm-row-title">{props.title}</span>
      {props.sub && <span className="wm-row-sub">{props.sub}</span>}
    </span>
  );
}

export function ListItem(props: NodeProps): JSX.Element {
  const p = props.node.p;
  const title = str(p, 'title');
  const image = opt(p, 'image');
  const icon = opt(p, 'icon');
  const trailing = opt(p, 'trailing');
  const busy = isBusy(props.node, props.ctx);
  // a count ("420+", "7") or a capitalised word ("QR CODE") is a tag; an amount ("25 TUSD") is text
  const short = trailing !== undefined && trailing.length <= 12 && /^(\d+\+?|[A-Z][A-Z ]*)$/.test(trailing);
  return (
    <Row {...props} className="wm-item">
      {image !== undefined ? (
        <Img src={image} alt={title} className="wm-row-img" deco />
      ) : icon !== undefined ? (
        <span className="wm-row-icon">
          <Icon name={icon} size={20} />
        </span>
      ) : null}
      <Main title={title} sub={opt(p, 'subtitle')} />
      <span className="wm-row-end">
        {trailing !== undefined &&
          (short ? (
            <span className="wm-tag" data-tag={tagKind(trailing)}>
              {trailing}
            </span>
          ) : (
            <span className="wm-trail">{trailing}</span>
          ))}
        {busy ? <Spinner size={18} /> : bool(p, 'chevron') && <Icon name="chevron-right" size={18} className="wm-chev" />}
      </span>
    </Row>
  );
}

export function WalletItem(props: NodeProps): JSX.Element {
  const p = props.node.p;
  const name = str(p, 'name');
  const tag = opt(p, 'tag');
  const busy = isBusy(props.node, props.ctx);
  const kind = tag === undefined ? undefined : tagKind(tag);
  return (
    <Row {...props} className="wm-wallet" tag={kind}>
      {/* the name is the row's own text: the mark is decorative (axe image-redundant-alt, issue 39) */}
      <Img src={opt(p, 'image')} alt={name} className="wm-row-img" lazy={bool(p, 'lazy')} deco />
      <Main title={name} />
      <span className="wm-row-end">
        {tag !== undefined && (
          <span className="wm-tag" data-tag={kind}>
            {tag}
          </span>
        )}
        {busy && <Spinner size={18} />}
      </span>
    </Row>
  );
}

export function NetworkItem(props: NodeProps): JSX.Element {
  const p = props.node.p;
  const name = str(p, 'name');
  const active = bool(p, 'active');
  const busy = isBusy(props.node, props.ctx);
  const image = opt(p, 'image');
  return (
    <Row {...props} className="wm-net" current={active}>
      {image !== undefined ? (
        <Img src={image} alt={name} className="wm-row-img" round deco />
      ) : (
        <span className="wm-row-icon">
          <Icon name="network" size={20} />
        </span>
      )}
      <Main title={name} />
      <span className="wm-row-end">
        {busy ? (
          <Spinner size={18} />
        ) : (
          active && (
            <span className="wm-net-on" aria-hidden="true">
              <Icon name="check" size={14} />
            </span>
          )
        )}
      </span>
    </Row>
  );
}

export function TokenItem(props: NodeProps): JSX.Element {
  const p = props.node.p;
  const symbol = str(p, 'symbol');
  const amount = str(p, 'amount');
  const value = opt(p, 'value');
  return (
    <Row {...props} className="wm-token">
      <Img src={opt(p, 'image')} alt={symbol || str(p, 'name')} className="wm-row-img" round />
      <Main title={str(p, 'name')} sub={`${amount} ${symbol}`.trim()} />
      {value !== undefined && <span className="wm-row-end wm-row-value">{value}</span>}
    </Row>
  );
}

export function ActivityItem(props: NodeProps): JSX.Element {
  const p = props.node.p;
  const title = str(p, 'title');
  const status = str(p, 'status').toLowerCase();
  const amount = str(p, 'amount');
  const image = opt(p, 'image');
  return (
    <Row {...props} className="wm-activity">
      <span className="wm-act-img">
        {image !== undefined ? (
          <Img src={image} alt={title} className="wm-row-img" round />
        ) : (
          <span className="wm-row-icon wm-round">
            <Icon name="activity" size={18} />
          </span>
        )}
        {(status === 'failed' || status === 'pending') && (
          <span className="wm-act-badge" data-status={status} title={status}>
            {status === 'failed' ? <Icon name="close" size={10} /> : <Spinner size={10} />}
          </span>
        )}
      </span>
      <Main title={title} sub={str(p, 'subtitle')} />
      <span className="wm-row-end wm-act-end">
        <span className="wm-row-sub">{str(p, 'time')}</span>
        {amount && (
          <span className="wm-act-amount" data-sign={amount.startsWith('+') ? 'in' : undefined}>
            {amount}
          </span>
        )}
      </span>
    </Row>
  );
}

export function Group({ node, ctx }: NodeProps): JSX.Element {
  const title = str(node.p, 'title');
  return (
    <section className="wm-group" aria-label={title || labelOf(node) || undefined}>
      {title && <h3 className="wm-group-title">{title}</h3>}
      <div className="wm-group-items">{renderChildren(node, ctx)}</div>
    </section>
  );
}
