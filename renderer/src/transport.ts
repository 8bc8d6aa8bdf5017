/**
 * The websocket to the engine (PROTOCOL.md, "Transport", "Resume"): msgpack frames, sequence
 * numbers and acks, reconnect with backoff, resume, patch application and resync. It knows the
 * protocol and nothing of the product: trees, effects and host events go to its sink.
 */
import { type ClientBody, type CompanionJoin, type Dict, type ServerFrame, decodeServerFrame, encodeClientFrame } from './codec';
import type { EffectFrame, IntentAckFrame, JoinedFrame } from './frames.gen';
import { applyOps } from './patch';
import type { WireNode } from './tree';
import type { EffectOutcome } from './bridge';

export interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
}

export type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  random(): number;
}

export type IntentStatus = IntentAckFrame['status'];
export type SocketStatus = 'connecting' | 'open' | 'joined' | 'closed';

/** Where the transport delivers what the engine says. */
export interface TransportSink {
  tree(tree: WireNode, version: number): void;
  intentAck(iid: string, status: IntentStatus, error?: string): void;
  hostEvent(kind: string, data: Dict): void;
  theme(mode: string, vars: Dict): void;
  /** `error` frames, `goodbye` and refusing close codes; `final` when no reconnect follows. */
  problem(code: string, message: string, final: boolean): void;
  /** `open`: the socket opened (the engine is there), before `joined`. */
  status?(status: SocketStatus): void;
}

/**
 * What runs effects (the wallet bridge): one performer per effect kind (PROTOCOL.md, "Effect
 * kinds"), called by name from the transport's one routing table, and `run`, which bounds a
 * performer's work by the effect's time-out and turns it into an outcome (never rejects).
 */
export interface EffectRunner {
  run(eid: string, work: () => unknown, timeoutMs: number): Promise<EffectOutcome>;
  cancel(eid: string): void;
  eip1193(req: Dict): Promise<unknown>;
  solana(req: Dict): Promise<unknown>;
  clipboard(req: Dict): Promise<unknown>;
  openUrl(req: Dict): unknown;
  discover(): void;
}

/**
 * The key a server frame is routed by, in one table (`Transport.routes`): its `t`, and for an
 * `effect` frame `effect:<kind>`, as if each kind were a frame of its own (the socket edge
 * refuses a kind not in the generated `EffectFrame['kind']`). `joined` is taken before routing.
 */
export type Route = Exclude<ServerFrame['t'], 'joined' | 'effect'> | `effect:${EffectFrame['kind']}`;
type Routed<R extends Route> = R extends `effect:${infer K}` ? EffectFrame & { kind: K } : Extract<ServerFrame, { t: R }>;
type Routes = { readonly [R in Route]: (frame: Routed<R>) => void };

function routeOf(frame: Exclude<ServerFrame, JoinedFrame>): Route {
  return frame.t === 'effect' ? `effect:${frame.kind}` : frame.t;
}

export interface TransportOptions {
  url: string;
  projectId: string;
  /** The per-socket parts of `join`, read when the socket opens. */
  join(): { env: Dict; opts: Dict; wallets: Dict[] };
  /** The linked phone joining its session (PROTOCOL.md, "Companion"): sent instead of a resume token. */
  companion?: CompanionJoin;
  /** A fresh signed companion join for the next socket (its nonce joins once); null: none. */
  renewCompanion?: () => Promise<CompanionJoin | null>;
  sink: TransportSink;
  effects: EffectRunner;
  socket?: (url: string) => SocketLike;
  storage?: StorageLike | null;
  clock?: Clock;
  backoff?: { min: number; max: number; jitter: number };
  ackDelay?: number;
}

const OPEN = 1;
/** Close codes after which reconnecting cannot help (PROTOCOL.md, "Close codes"). */
const REFUSED: Record<number, string> = {
  4001: 'bad_origin',
  4002: 'no_project',
  4004: 'replaced',
  4006: 'companion_refused',
};

type Outgoing = { body: ClientBody; s: number };

const defaultClock: Clock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: () => Math.random(),
};

/** A random id of 32 hex characters (intent ids are at most 64). */
export function randomId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export class Transport {
  private socket: SocketLike | null = null;
  private joinSent = false;
  private joined = false;
  private stopped = false;
  private destroyed = false;
  private seq: number;
  private last: number;
  private sentAck = 0;
  private tree: WireNode | null = null;
  private version = 0;
  private awaitingSnapshot = false;
  private outbox: Outgoing[] = [];
  private intents = new Map<string, string>(); // iid -> node
  private effectsRunning = new Set<string>();
  private ackTimer: unknown = null;
  private retryTimer: unknown = null;
  private attempt = 0;
  private companion: CompanionJoin | undefined;
  private companionSpent = false; // its nonce went out in a join: the next socket needs a fresh one
  private renewing = false;
  private readonly clock: Clock;
  private readonly storage: StorageLike | null;
  private readonly prefix: string;

  constructor(private readonly options: TransportOptions) {
    this.clock = options.clock ?? defaultClock;
    this.storage = options.storage === undefined ? defaultStorage() : options.storage;
    this.prefix = `modalcore:${options.projectId}:`;
    this.seq = this.readInt('seq');
    this.last = this.readInt('last');
    this.companion = options.companion;
  }

  /** True once `join` went out on the current socket (later announcements go as events). */
  get joinedSocket(): boolean {
    return this.joinSent;
  }

  connect(): void {
    if (this.destroyed || this.socket || this.renewing) return;
    this.stopped = false;
    this.clock.clearTimeout(this.retryTimer);
    const renew = this.options.renewCompanion;
    if (this.companion && this.companionSpent && renew) return this.renewThenConnect(renew);
    const url = this.options.url;
    let socket: SocketLike;
    try {
      socket = this.options.socket ? this.options.socket(url) : (new WebSocket(url) as unknown as SocketLike);
    } catch (error) {
      this.options.sink.problem('connect', String(error), false);
      return this.retryLater();
    }
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    this.joinSent = false;
    this.joined = false;
    this.options.sink.status?.('connecting');
    socket.onopen = () => {
      this.options.sink.status?.('open');
      this.sendJoin();
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => this.closed(socket, event.code);
    socket.onerror = () => undefined;
  }

  /** Tries now, without waiting for the backoff (the visitor pressed "Try again"). */
  retryNow(): void {
    if (this.destroyed || this.socket) return;
    this.attempt = 0;
    this.stopped = false;
    this.connect();
  }

  /**
   * Closes for good (the modal is destroyed): tells the engine to end the session (`leave`, so
   * its resume token stops working) and forgets the token here.
   */
  destroy(): void {
    if (this.destroyed) return;
    if (this.joinSent) this.write({ t: 'leave' }, this.nextSeq());
    this.destroyed = true;
    this.clock.clearTimeout(this.retryTimer);
    this.clock.clearTimeout(this.ackTimer);
    this.writeStr('resume', null);
    this.writeStr('last', null);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, 'destroyed');
  }

  /** Sends an intent; returns its id. It is retransmitted with the same id until acknowledged. */
  sendIntent(node: string, act: string, args: Dict = {}): string {
    const iid = randomId();
    this.intents.set(iid, node);
    this.enqueue({ t: 'intent', iid, node, act, args });
    return iid;
  }

  sendWalletEvent(connector: string, event: string, data: unknown): void {
    this.enqueue({ t: 'wallet_event', connector, event, data: data ?? null });
  }

  // ----- sending

  private enqueue(body: ClientBody): void {
    const entry: Outgoing = { body, s: 0 };
    this.outbox.push(entry);
    if (this.joined) this.transmit(entry);
    else if (this.stopped && !this.destroyed) {
      this.stopped = false; // a visitor's action after goodbye: try again
      if (!this.socket) this.connect();
    }
  }

  private transmit(entry: Outgoing): void {
    entry.s = this.nextSeq();
    this.write(entry.body, entry.s);
  }

  private nextSeq(): number {
    this.seq += 1;
    this.writeInt('seq', this.seq);
    return this.seq;
  }

  private write(body: ClientBody, s: number): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return;
    socket.send(encodeClientFrame(body, s, this.last));
    this.sentAck = this.last;
    this.clock.clearTimeout(this.ackTimer);
    this.ackTimer = null;
  }

  /** A companion's nonce joins once (PROTOCOL.md, "Companion"): a new socket gets a fresh one. */
  private renewThenConnect(renew: () => Promise<CompanionJoin | null>): void {
    this.renewing = true;
    const failed = (why: string) => {
      this.options.sink.problem('companion_renew', why, false);
      this.retryLater();
    };
    renew().then(
      (next) => {
        this.renewing = false;
        if (this.destroyed) return;
        if (!next) return failed('no fresh companion nonce');
        this.companion = next;
        this.companionSpent = false;
        this.connect();
      },
      (error: unknown) => {
        this.renewing = false;
        if (!this.destroyed) failed(String(error));
      },
    );
  }

  private sendJoin(): void {
    const resume = this.readStr('resume');
    const { env, opts, wallets } = this.options.join();
    const body: ClientBody = { t: 'join', project: this.options.projectId, env, opts, wallets };
    const companion = this.companion;
    if (companion) {
      body.companion = companion; // a companion is never resumed: it joins again, signed
      this.companionSpent = true;
    } else if (resume) {
      body.resume = resume;
      // Missed frames only help a client that still holds the tree they patch.
      if (this.tree && this.last > 0) body.last = this.last;
    }
    this.joinSent = true;
    this.write(body, this.nextSeq());
  }

  private scheduleAck(): void {
    if (this.ackTimer !== null) return;
    this.ackTimer = this.clock.setTimeout(() => {
      this.ackTimer = null;
      if (this.last > this.sentAck) this.write({ t: 'ack' }, 0);
    }, this.options.ackDelay ?? 1000);
  }

  private resync(): void {
    this.awaitingSnapshot = true;
    if (this.joined) this.write({ t: 'resync', v: this.version }, this.nextSeq());
  }

  // ----- receiving

  private receive(data: unknown): void {
    let frame: ServerFrame;
    try {
      if (!(data instanceof ArrayBuffer || data instanceof Uint8Array)) throw new Error('text frame');
      frame = decodeServerFrame(data);
    } catch (error) {
      this.options.sink.problem('malformed', String(error), false);
      return;
    }
    this.acknowledged(frame.a, frame.t === 'joined');
    if (frame.t === 'joined') return this.welcome(frame);
    if (frame.s === 0) return; // bare ack
    if (frame.s <= this.last) return; // already processed (a resume replay)
    try {
      this.handle(frame);
    } finally {
      this.last = frame.s;
      this.writeInt('last', this.last);
      this.scheduleAck();
    }
  }

  /** The engine processed our frames up to `a`: they need no retransmission, intents aside. */
  private acknowledged(a: number, fromJoined: boolean): void {
    if (fromJoined) return; // a new session's `a` counts only its own frames
    this.outbox = this.outbox.filter((e) => e.s === 0 || e.s > a || e.body.t === 'intent');
  }

  private welcome(frame: JoinedFrame): void {
    this.writeStr('resume', frame.resume);
    if (!frame.resumed) {
      // A new session numbers its frames from 1 and knows nothing of the old tree or effects.
      this.last = 0;
      this.writeInt('last', 0);
      this.awaitingSnapshot = true;
      this.outbox = this.outbox.filter((e) => {
        if (e.body.t === 'effect_result') return false;
        if (e.body.t === 'intent' && e.body.node !== 'host') {
          this.intents.delete(e.body.iid);
          this.options.sink.intentAck(e.body.iid, 'stale', 'session ended');
          return false;
        }
        return true;
      });
    } else {
      this.outbox = this.outbox.filter((e) => e.s === 0 || e.s > frame.a || e.body.t === 'intent');
    }
    this.joined = true;
    this.attempt = 0;
    this.options.sink.status?.('joined');
    if (frame.resumed && this.awaitingSnapshot) this.resync();
    for (const entry of this.outbox) this.transmit(entry);
  }

  /** The renderer's one table of server frames (architecture.md, "The routing mechanisms"). */
  private readonly routes: Routes = {
    snapshot: (frame) => {
      this.tree = frame.tree;
      this.version = frame.v;
      this.awaitingSnapshot = false;
      this.options.sink.tree(frame.tree, frame.v);
    },
    patch: (frame) => this.patch(frame.base, frame.v, frame.ops),
    'effect:eip1193': (frame) => this.effect(frame, () => this.options.effects.eip1193(frame.req)),
    'effect:solana': (frame) => this.effect(frame, () => this.options.effects.solana(frame.req)),
    'effect:clipboard': (frame) => this.effect(frame, () => this.options.effects.clipboard(frame.req)),
    'effect:open_url': (frame) => this.effect(frame, () => this.options.effects.openUrl(frame.req)),
    'effect:discover': (frame) => this.effect(frame, () => this.options.effects.discover()),
    effect_cancel: (frame) => {
      this.effectsRunning.delete(frame.eid);
      this.options.effects.cancel(frame.eid);
    },
    intent_ack: (frame) => {
      if (!this.intents.delete(frame.iid)) return;
      this.outbox = this.outbox.filter((e) => !(e.body.t === 'intent' && e.body.iid === frame.iid));
      this.options.sink.intentAck(frame.iid, frame.status, frame.error);
    },
    host_event: (frame) => this.options.sink.hostEvent(frame.kind, frame.data),
    theme: (frame) => this.options.sink.theme(frame.mode, frame.vars),
    error: (frame) => this.options.sink.problem(frame.code, frame.message, false),
    goodbye: (frame) => {
      this.stopped = true;
      this.writeStr('resume', null);
      this.options.sink.problem(frame.code, frame.message, true);
    },
    ack: () => undefined,
  };

  private handle(frame: Exclude<ServerFrame, JoinedFrame>): void {
    (this.routes[routeOf(frame)] as (frame: ServerFrame) => void)(frame);
  }

  private patch(base: number, v: number, ops: unknown[]): void {
    if (this.awaitingSnapshot) return;
    if (!this.tree || base !== this.version) return this.resync();
    let next: WireNode;
    try {
      next = applyOps(this.tree, ops);
    } catch {
      return this.resync();
    }
    this.tree = next;
    this.version = v;
    this.options.sink.tree(next, v);
  }

  private effect(frame: EffectFrame, work: () => unknown): void {
    const eid = frame.eid;
    this.effectsRunning.add(eid);
    void this.options.effects.run(eid, work, frame.timeout).then((outcome) => {
      if (!this.effectsRunning.delete(eid)) return; // cancelled meanwhile
      this.enqueue(
        outcome.ok
          ? { t: 'effect_result', eid, ok: true, result: outcome.result }
          : { t: 'effect_result', eid, ok: false, error: outcome.error },
      );
    });
  }

  // ----- closing and reconnecting

  private closed(socket: SocketLike, code: number): void {
    if (socket !== this.socket) return;
    this.socket = null;
    this.joined = false;
    this.joinSent = false;
    this.clock.clearTimeout(this.ackTimer);
    this.ackTimer = null;
    this.options.sink.status?.('closed');
    if (this.destroyed) return;
    const refused = REFUSED[code];
    if (refused) {
      this.stopped = true;
      this.options.sink.problem(refused, `connection refused (${code})`, true);
      return;
    }
    if (!this.stopped) this.retryLater();
  }

  private retryLater(): void {
    const { min, max, jitter } = this.options.backoff ?? { min: 250, max: 8000, jitter: 0.3 };
    const base = Math.min(max, min * 2 ** this.attempt);
    const delay = base * (1 + jitter * (2 * this.clock.random() - 1));
    this.attempt += 1;
    this.retryTimer = this.clock.setTimeout(() => this.connect(), delay);
  }

  // ----- storage (under `modalcore:<projectId>:`)

  private key(name: string): string {
    return this.prefix + name;
  }

  private readStr(name: string): string | undefined {
    try {
      return this.storage?.getItem(this.key(name)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  private readInt(name: string): number {
    const value = Number(this.readStr(name) ?? 0);
    return Number.isSafeInteger(value) && value > 0 ? value : 0;
  }

  private writeInt(name: string, value: number): void {
    this.writeStr(name, String(value));
  }

  private writeStr(name: string, value: string | null): void {
    try {
      if (value === null) this.storage?.removeItem(this.key(name));
      else this.storage?.setItem(this.key(name), value);
    } catch {
      /* storage full or refused: resume is best effort */
    }
  }
}

function defaultStorage(): StorageLike | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // access refused (sandboxed frame, privacy settings)
  }
}
