/**
 * When the engine cannot be reached. Every word the modal shows comes from the engine, except
 * here: with no engine there is no tree, so the renderer draws this one small view itself (a
 * title, one line, "Try again") from the engine's own node types, and tells the host page with
 * the renderer-side host events `connection` and `error` (docs/hosts/events.md). The text is
 * generic and English: the engine's languages are out of reach too.
 */
import type { WireNode } from './tree';
import type { SocketStatus } from './transport';

/** Node ids of the local view; a press on them never goes to the engine. */
export const LOCAL_PREFIX = 'local:';
export const LOCAL_RETRY = `${LOCAL_PREFIX}retry`;
export const LOCAL_CLOSE = `${LOCAL_PREFIX}close`;

export const UNREACHABLE_TITLE = 'Wallet service unavailable';
export const UNREACHABLE_TEXT = 'The wallet service cannot be reached. Check your connection and try again.';
export const UNREACHABLE_ERROR = 'The wallet service cannot be reached';

/** How long a connection attempt may hang before its socket opens, before the visitor is told (a
 * refused one tells at once; an open socket is an engine that answers, however slow its join). */
export const UNREACHABLE_AFTER_MS = 1500;

export type Connection = 'connecting' | 'connected' | 'unreachable';

/** The view drawn while the visitor asked to open the modal and no engine answers. */
export function offlineTree(retrying: boolean): WireNode {
  return {
    id: `${LOCAL_PREFIX}modal`,
    t: 'modal',
    p: { open: true, closable: true, view: 'Unreachable', on: { close: null } },
    c: [
      { id: LOCAL_CLOSE, t: 'header', p: { title: UNREACHABLE_TITLE, close: true, on: { close: null } } },
      {
        id: `${LOCAL_PREFIX}view`,
        t: 'view',
        p: { name: 'Unreachable', title: UNREACHABLE_TITLE },
        c: [
          {
            id: `${LOCAL_PREFIX}stack`,
            t: 'stack',
            p: { dir: 'col', gap: 16, align: 'center', pad: 16 },
            c: [
              { id: `${LOCAL_PREFIX}icon`, t: 'icon', p: { name: 'warning', tone: 'error', size: 40 } },
              { id: `${LOCAL_PREFIX}text`, t: 'text', p: { text: UNREACHABLE_TEXT, variant: 'body', tone: 'secondary' } },
              {
                id: LOCAL_RETRY,
                t: 'button',
                p: { text: 'Try again', variant: 'main', busy: retrying, on: { press: null } },
              },
            ],
          },
        ],
      },
    ],
  };
}

interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Follows the transport's socket status: `unreachable` once a socket closes before the engine
 * answered `join` (a refused connection, at once) or a socket has not opened after
 * `UNREACHABLE_AFTER_MS`; `connected` on `joined`. `onChange` hears each change, and each failed attempt.
 */
export class Reachability {
  private state: Connection = 'connecting';
  private timer: unknown = null;

  constructor(
    private readonly onChange: (state: Connection) => void,
    private readonly timers: Timers = { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) },
  ) {}

  get current(): Connection {
    return this.state;
  }

  status(status: SocketStatus): void {
    if (status === 'open') return this.stopTimer();
    if (status === 'joined') {
      this.stopTimer();
      return this.set('connected');
    }
    if (status === 'closed') {
      this.stopTimer();
      // every failed attempt is told (it ends a "Try again"); a dropped socket reconnects
      if (this.state !== 'connected') this.set('unreachable', true);
      else this.set('connecting');
      return;
    }
    if (this.timer === null && this.state !== 'unreachable') {
      this.timer = this.timers.setTimeout(() => {
        this.timer = null;
        if (this.state !== 'connected') this.set('unreachable');
      }, UNREACHABLE_AFTER_MS);
    }
  }

  stop(): void {
    this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private set(state: Connection, again = false): void {
    if (state === this.state && !again) return;
    this.state = state;
    this.onChange(state);
  }
}
