// Editable nodes: input, otp-input, tabs. Each keeps a local value so typing never waits for
// the engine, and adopts the engine's value when the engine changes it.
import { type JSX, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { useAdopted } from './basic';
import { Icon, Spinner } from './icons';
import { type NodeProps, bool, isBusy, num, offers, opt, str } from './util';

const MAX = 256;

/**
 * Local text that follows the server: the server's value is adopted unless it is the echo of
 * something typed here earlier (the engine lags behind a fast typist).
 */
function useEcho(server: string): [string, (v: string) => void] {
  const [s, set] = useState({ server, local: server });
  const sent = useRef(new Set<string>());
  let cur = s;
  if (s.server !== server) {
    let local = s.local;
    if (server === s.local) sent.current.clear();
    else if (!sent.current.has(server)) {
      local = server;
      sent.current.clear();
    }
    cur = { server, local };
    set(cur);
  }
  return [
    cur.local,
    (v: string) => {
      sent.current.add(v);
      set({ server, local: v });
    },
  ];
}

const LEAD: Record<string, string> = { search: 'search', email: 'mail' };

export function Input({ node, ctx }: NodeProps): JSX.Element {
  const p = node.p;
  const kind = str(p, 'kind', 'text');
  const [value, setValue] = useEcho(str(p, 'value'));
  const error = opt(p, 'error');
  const invalid = error !== undefined || bool(p, 'invalid');
  const unit = opt(p, 'unit');
  const errId = useId();
  const ref = useRef<HTMLInputElement>(null);
  const autofocus = bool(p, 'autofocus');
  const busy = isBusy(node, ctx);
  useEffect(() => {
    if (autofocus) ref.current?.focus({ preventScroll: true });
  }, [autofocus]);
  const lead = LEAD[kind];
  const max = Math.min(num(p, 'max', MAX), MAX);
  return (
    <div className="wm-field">
      <div className="wm-input" data-kind={kind} data-error={invalid || undefined}>
        {lead && <Icon name={lead} size={kind === 'search' ? 16 : 18} />}
        <input
          ref={ref}
          value={value}
          placeholder={str(p, 'placeholder')}
          aria-label={str(p, 'label') || str(p, 'placeholder') || kind}
          aria-invalid={invalid || undefined}
          aria-describedby={error !== undefined ? errId : undefined}
          data-autofocus={autofocus || undefined}
          disabled={bool(p, 'disabled')}
          type={kind === 'email' ? 'email' : 'text'}
          role={kind === 'search' ? 'searchbox' : undefined}
          inputMode={kind === 'amount' ? 'decimal' : kind === 'email' ? 'email' : undefined}
          enterKeyHint={kind === 'search' ? 'search' : offers(node, 'submit') ? 'go' : undefined}
          autoComplete={kind === 'email' ? 'email' : 'off'}
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          maxLength={max}
          onChange={(e) => {
            const v = e.currentTarget.value.slice(0, max);
            setValue(v);
            if (offers(node, 'change')) ctx.send(node.id, 'change', { value: v });
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.nativeEvent.isComposing && offers(node, 'submit')) {
              e.preventDefault();
              ctx.send(node.id, 'submit', { value });
            }
          }}
        />
        {unit && <span className="wm-unit">{unit}</span>}
        {busy && <Spinner size={18} />}
      </div>
      {error !== undefined && (
        <p className="wm-field-error" id={errId} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function OtpInput({ node, ctx }: NodeProps): JSX.Element {
  const p = node.p;
  const length = Math.max(1, Math.min(12, num(p, 'length', 6)));
  const [value, setValue] = useEcho(str(p, 'value').slice(0, length));
  const error = opt(p, 'error');
  const refs = useRef<(HTMLInputElement | null)[]>([]);
  // The latest value, also between a keystroke and the re-render it causes: focusing the next
  // box runs before React draws the new value, and its focus handler must see the new length.
  const latest = useRef(value);
  latest.current = value;
  const busy = isBusy(node, ctx);
  const focus = (i: number): void => {
    const el = refs.current[Math.max(0, Math.min(length - 1, i))];
    el?.focus();
    el?.select();
  };
  useEffect(() => {
    // A code entry view wants the keyboard at once (on mount; a no-op while the modal is hidden).
    const el = refs.current[Math.min(value.length, length - 1)];
    if (el && el.getClientRects().length > 0) el.focus({ preventScroll: true });
  }, []);
  const update = (v: string): void => {
    const next = v.replace(/[^0-9a-z]/gi, '').slice(0, length);
    if (next === latest.current) return;
    latest.current = next;
    setValue(next);
    if (offers(node, 'change')) ctx.send(node.id, 'change', { value: next });
  };
  const onKey = (i: number, e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'Backspace' && !value[i] && i > 0) {
      e.preventDefault();
      update(value.slice(0, i - 1) + value.slice(i));
      focus(i - 1);
    } else if (e.key === 'ArrowLeft') {
      e.preventDefault();
      focus(i - 1);
    } else if (e.key === 'ArrowRight') {
      e.preventDefault();
      focus(i + 1);
    } else if (e.key === 'Enter' && offers(node, 'submit')) {
      ctx.send(node.id, 'submit', { value });
    }
  };
  return (
    <div className="wm-field">
      <div className="wm-otp" role="group" aria-label={str(p, 'label') || 'Verification code'} data-error={error !== undefined || undefined}>
        {Array.from({ length }, (_, i) => (
          <input
            key={i}
            ref={(el) => {
              refs.current[i] = el;
            }}
            value={value[i] ?? ''}
            inputMode="numeric"
            autoComplete={i === 0 ? 'one-time-code' : 'off'}
            aria-label={`Digit ${i + 1} of ${length}`}
            aria-invalid={error !== undefined || undefined}
            data-autofocus={i === Math.min(value.length, length - 1) || undefined}
            onFocus={(e) => {
              if (i > latest.current.length) focus(latest.current.length);
              else e.currentTarget.select();
            }}
            onKeyDown={(e) => onKey(i, e)}
            onChange={(e) => {
              const typed = e.currentTarget.value.replace(/[^0-9a-z]/gi, '');
              if (typed === '') {
                update(value.slice(0, i) + value.slice(i + 1));
                return;
              }
              update(value.slice(0, i) + typed + value.slice(i + typed.length));
              focus(i + typed.length);
            }}
          />
        ))}
      </div>
      {busy && (
        <span className="wm-spinner-node">
          <Spinner size={20} />
        </span>
      )}
      {error !== undefined && (
        <p className="wm-field-error wm-center" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function Tabs({ node, ctx }: NodeProps): JSX.Element {
  const raw = node.p?.items;
  const items = Array.isArray(raw) ? raw.map((x) => (typeof x === 'string' ? x : String(x))) : [];
  const [active, setActive] = useAdopted(num(node.p, 'active', 0));
  const ref = useRef<HTMLDivElement>(null);
  const select = (i: number): void => {
    if (i < 0 || i >= items.length || i === active || !offers(node, 'select')) return;
    setActive(i);
    ctx.send(node.id, 'select', { value: String(i) });
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>): void => {
    const forward = ref.current !== null && getComputedStyle(ref.current).direction === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
    const d = e.key === forward ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowRight' ? -1 : 0;
    if (!d) return;
    e.preventDefault();
    const i = (active + d + items.length) % items.length;
    select(i);
    ref.current?.querySelectorAll<HTMLElement>('[role=tab]')[i]?.focus();
  };
  const style = { '--n': Math.max(1, items.length), '--i': active } as Record<string, number>;
  return (
    <div ref={ref} className="wm-tabs" role="tablist" aria-label={str(node.p, 'label') || undefined} style={style} onKeyDown={onKey}>
      <span className="wm-tab-ind" aria-hidden="true" />
      {items.map((t, i) => (
        <button
          key={i}
          type="button"
          role="tab"
          className="wm-tab"
          aria-selected={i === active}
          tabIndex={i === active ? 0 : -1}
          onClick={() => select(i)}
        >
          {t}
        </button>
      ))}
    </div>
  );
}
