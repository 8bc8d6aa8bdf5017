/**
 * What the React tree draws, and what the host's subscribers see. The engine's frames are the
 * truth; the only local state is the pending hints of pressed actions and the open override of
 * `open()` / `close()`, each kept until the engine has answered its intent and sent the next
 * tree (or refused the intent).
 */
import { type PendingHint, type WireNode, indexTree, pendingHintOf } from './tree';
import { type Connection, LOCAL_PREFIX, LOCAL_RETRY, UNREACHABLE_ERROR, offlineTree } from './offline';

export type Dict = Record<string, unknown>;
export type ThemeMode = 'light' | 'dark';

export interface ViewState {
  /** The engine's tree with the local open override applied to the root modal node. */
  tree: WireNode | null;
  pending: ReadonlyMap<string, PendingHint>;
  themeMode: ThemeMode;
  themeVars: Record<string, string>;
}

type Local<T> = { value: T; iid: string | null; acked: boolean };
type HostListener = (data: Dict) => void;

export class ModalStore {
  private raw: WireNode | null = null;
  private index: Map<string, WireNode> | null = null;
  private pending = new Map<string, Local<PendingHint>>();
  private openOverride: Local<boolean> | null = null;
  private themeMode: ThemeMode;
  private themeVars: Record<string, string> = {};
  private view: ViewState;
  private listeners = new Set<() => void>();
  private host = new Map<string, Dict>();
  private hostListeners = new Map<string, Set<HostListener>>();
  /** The engine's reachability, whether the visitor asked to open before any tree came, and
   * whether "Try again" is under way (offline.ts). */
  private connection: Connection = 'connecting';
  private openWithoutTree = false;
  private retrying = false;
  /** "Try again" on the unreachable view: the host wires it to the transport. */
  onRetry: () => void = () => undefined;

  constructor(
    /** Sends an intent to the engine and returns its id. */
    private readonly sendIntent: (node: string, act: string, args: Dict) => string,
    themeMode: ThemeMode = 'dark',
  ) {
    this.themeMode = themeMode;
    this.view = this.compute();
  }

  // ----- React side (useSyncExternalStore)

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getView = (): ViewState => this.view;

  /** `ctx.send`: applies the node's pending hint for `act` at once, then sends the intent. */
  readonly press = (nodeId: string, act: string, args: Dict = {}): void => {
    if (nodeId.startsWith(LOCAL_PREFIX)) return this.pressLocal(nodeId, act);
    this.index ??= indexTree(this.raw);
    const hint = pendingHintOf(this.index.get(nodeId), act);
    const local: Local<PendingHint> | null = hint ? { value: hint, iid: null, acked: false } : null;
    const close: Local<boolean> | null = hint === 'close' ? { value: false, iid: null, acked: false } : null;
    if (local) this.pending.set(nodeId, local);
    if (close) this.setOverride(close);
    if (local) this.publish();
    const iid = this.sendIntent(nodeId, act, args);
    if (local) local.iid = iid;
    if (close) close.iid = iid;
  };

  /** `open()` / `close()` of the host API: shown locally now, confirmed by the engine later. */
  hostOpen(open: boolean, act: string, args: Dict): string {
    if (!this.raw) {
      this.openWithoutTree = open;
      this.publish();
    }
    // The prepared tree holds the opening view: `open({view})` naming another view waits for the engine.
    if (args.view !== undefined && this.raw?.p?.view !== args.view) return this.sendIntent('host', act, args);
    const local: Local<boolean> = { value: open, iid: null, acked: false };
    this.setOverride(local);
    this.publish();
    local.iid = this.sendIntent('host', act, args);
    return local.iid;
  }

  // ----- engine side (the transport's sink)

  setTree(tree: WireNode): void {
    this.raw = tree;
    this.index = null;
    this.openWithoutTree = false;
    for (const [id, local] of this.pending) if (local.acked) this.pending.delete(id);
    if (this.openOverride?.acked) {
      // A tree whose `open` differs from the last state event is followed by the state event of
      // its step: that event, not the stale one, tells the subscribers (no flicker to closed).
      if (tree.t === 'modal' && tree.p?.open !== this.host.get('state')?.open) this.openOverride = null;
      else this.setOverride(null);
    }
    this.publish();
  }

  intentAck(iid: string, status: string): void {
    let changed = false;
    for (const [id, local] of this.pending) {
      if (local.iid !== iid) continue;
      if (status === 'ok') local.acked = true;
      else changed = this.pending.delete(id) || changed;
    }
    if (this.openOverride?.iid === iid) {
      if (status === 'ok') this.openOverride.acked = true;
      else {
        this.setOverride(null);
        changed = true;
      }
    }
    if (changed) this.publish();
  }

  setTheme(mode: string, vars: Dict): void {
    this.themeMode = mode === 'light' ? 'light' : 'dark';
    this.themeVars = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, String(v)]));
    this.publish();
  }

  hostEvent(kind: string, data: Dict): void {
    this.host.set(kind, data);
    this.notifyHost(kind);
  }

  /** The engine's reachability (offline.ts): tells the host (`connection`, and `error` when
   * it becomes unreachable) and draws the unreachable view if the visitor asked to open. */
  setConnection(state: Connection): void {
    if (state === this.connection) {
      // another failed attempt: a "Try again" under way has its answer
      if (this.retrying) {
        this.retrying = false;
        this.publish();
      }
      return;
    }
    this.connection = state;
    this.retrying = false;
    if (state === 'connected') this.host.delete('error');
    this.hostEvent('connection', { status: state });
    if (state === 'unreachable') this.hostEvent('error', { code: 'unreachable', message: UNREACHABLE_ERROR });
    this.publish();
  }

  // ----- host subscribers (`subscribeState`, `subscribeAccount`, `subscribeNetwork`)

  hostData(kind: string): Dict | undefined {
    const data = this.host.get(kind);
    if (kind !== 'state' || !this.openOverride) return data;
    return { ...data, open: this.openOverride.value };
  }

  /** Calls `listener` on every change of `kind`, and at once when a value is known. */
  subscribeHost(kind: string, listener: HostListener): () => void {
    let set = this.hostListeners.get(kind);
    if (!set) this.hostListeners.set(kind, (set = new Set()));
    set.add(listener);
    const now = this.hostData(kind);
    if (now) listener(now);
    return () => set.delete(listener);
  }

  // ----- internals

  private pressLocal(nodeId: string, act: string): void {
    if (nodeId === LOCAL_RETRY && act === 'press') {
      this.retrying = true;
      this.publish();
      this.onRetry();
    } else if (act === 'close') {
      this.openWithoutTree = false;
      this.publish();
      this.sendIntent('host', 'close', {}); // after the queued `open`: the engine ends closed
    }
  }

  private setOverride(next: Local<boolean> | null): void {
    const before = this.hostData('state')?.open;
    this.openOverride = next;
    if (this.hostData('state')?.open !== before) this.notifyHost('state');
  }

  private notifyHost(kind: string): void {
    const data = this.hostData(kind);
    if (!data) return;
    for (const listener of this.hostListeners.get(kind) ?? []) {
      try {
        listener(data);
      } catch (error) {
        console.error(error);
      }
    }
  }

  private publish(): void {
    this.view = this.compute();
    for (const listener of this.listeners) listener();
  }

  private compute(): ViewState {
    let tree = this.raw;
    if (!tree && this.openWithoutTree && this.connection === 'unreachable') tree = offlineTree(this.retrying);
    const open = this.openOverride?.value;
    if (tree && open !== undefined && tree.t === 'modal' && tree.p?.open !== open) {
      tree = { ...tree, p: { ...tree.p, open } };
    }
    const previous = this.view?.pending;
    let pending: ReadonlyMap<string, PendingHint> = previous;
    const same = previous && previous.size === this.pending.size &&
      [...this.pending].every(([id, local]) => previous.get(id) === local.value);
    if (!same) pending = new Map([...this.pending].map(([id, local]) => [id, local.value]));
    return { tree, pending, themeMode: this.themeMode, themeVars: this.themeVars };
  }
}
