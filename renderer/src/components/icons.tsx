// Built-in inline SVG icons (24×24, stroked). No fonts, no requests.
import type { JSX } from 'react';
import { NETWORK_PATH } from './network-path';

const circle = (cx: number, cy: number, r: number): string =>
  `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`;
const ring = circle(12, 12, 9);

export const ICONS: Record<string, string> = {
  back: 'M15 18l-6-6 6-6',
  close: 'M18 6L6 18M6 6l12 12',
  copy: 'M11 9h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2h-8a2 2 0 0 1-2-2v-8a2 2 0 0 1 2-2zM5 15a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h8a2 2 0 0 1 2 2',
  check: 'M20 6L9 17l-5-5',
  'chevron-right': 'M9 18l6-6-6-6',
  'chevron-down': 'M6 9l6 6 6-6',
  wallet: 'M19 7V6a2 2 0 0 0-2-2H5a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V9a2 2 0 0 0-2-2H5M16.5 13.5h.01',
  search: `${circle(11, 11, 7)}M20 20l-3.8-3.8`,
  qr: 'M4 4h6v6H4zM14 4h6v6h-6zM4 14h6v6H4zM14 14h2v2h-2zM18 18h2v2h-2zM18 14h2M14 20h2',
  external: 'M14 4h6v6M20 4l-9 9M18 14v4a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h4',
  network: NETWORK_PATH,
  disconnect: 'M9 20H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h3M16 17l5-5-5-5M21 12H9',
  swap: 'M7 4L3 8l4 4M3 8h14M17 20l4-4-4-4M21 16H7',
  send: 'M7 17L17 7M8 7h9v9',
  receive: 'M17 7L7 17M16 17H7V8',
  card: 'M4 5h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2zM2 10h20M6 15h4',
  activity: 'M3 12h4l3-8 4 16 3-8h4',
  info: `${ring}M12 11v5M12 8h.01`,
  warning: 'M12 3.5L2.5 20h19zM12 10v4M12 17h.01',
  error: `${ring}M15 9l-6 6M9 9l6 6`,
  success: `${ring}M8 12.5l2.5 2.5L16 9.5`,
  spinner: 'M12 3a9 9 0 1 0 9 9',
  user: `${circle(12, 8, 4)}M4 21a8 8 0 0 1 16 0`,
  mail: 'M4 5h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2zM2.5 7.5L12 13.5l9.5-6',
  globe: `${ring}M3 12h18M12 3c2.5 2.5 3.8 5.5 3.8 9s-1.3 6.5-3.8 9c-2.5-2.5-3.8-5.5-3.8-9S9.5 5.5 12 3z`,
  refresh: 'M20 11a8 8 0 0 0-14.9-3.9L4 9M4 4v5h5M4 13a8 8 0 0 0 14.9 3.9L20 15M20 20v-5h-5',
  help: `${ring}M9.5 9.5a2.5 2.5 0 1 1 3.4 2.3c-.6.3-.9.8-.9 1.5v.4M12 17h.01`,
  more: 'M6 12h.01M12 12h.01M18 12h.01',
  plus: 'M12 5v14M5 12h14',
  'arrow-down': 'M12 5v14M6 13l6 6 6-6',
};

export function Icon(props: { name: string; size?: number; className?: string }): JSX.Element | null {
  const d = ICONS[props.name];
  if (d === undefined) return null;
  const size = props.size ?? 16;
  const bold = props.name === 'more' ? 3.2 : 2;
  return (
    <svg
      className={props.className ?? 'wm-icon'}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={bold}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      data-flip={props.name === 'back' || props.name === 'chevron-right' || undefined}
    >
      <path d={d} />
    </svg>
  );
}

export function Spinner(props: { size?: number }): JSX.Element {
  const s = props.size ?? 20;
  return (
    <svg className="wm-spinner" width={s} height={s} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <circle cx="12" cy="12" r="9.5" fill="none" stroke="currentColor" strokeWidth="2.5" opacity=".18" />
      <path d="M12 2.5a9.5 9.5 0 0 1 9.5 9.5" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" />
    </svg>
  );
}
