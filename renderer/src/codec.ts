/**
 * Frames on the wire (PROTOCOL.md, "Frame envelope", "Client → server", "Server → client").
 * Client frames are built with their keys in the documented order; server frames are checked
 * here, at the socket edge, so nothing further in sees an unchecked map.
 */
import { type FieldCheck, SERVER_FIELDS, type ServerFrame } from './frames.gen';

// ----- msgpack, written the way the engine's Python msgpack writes it: the smallest integer
// form (64-bit forms included, so 2^53 stays an integer), str (never raw) for strings, bin for
// bytes, float64 for non-integers, map keys in insertion order, `undefined` map values omitted.
// A local codec rather than a library: it keeps the bundle small and the bytes under our control
// (the tests check it against the shared vectors and against @msgpack/msgpack).

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
const MAX_DEPTH = 100;

class Writer {
  bytes = new Uint8Array(256);
  view = new DataView(this.bytes.buffer);
  pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.pos + n));
    grown.set(this.bytes);
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(b: number): void {
    this.ensure(1);
    this.bytes[this.pos++] = b;
  }

  /** A type byte followed by an unsigned (or, `signed`, a two's complement) big-endian int. */
  head(type: number, size: 0 | 1 | 2 | 4 | 8, value: number | bigint, signed = false): void {
    this.u8(type);
    this.ensure(size);
    const v = this.view;
    const at = this.pos;
    if (size === 1) signed ? v.setInt8(at, Number(value)) : v.setUint8(at, Number(value));
    else if (size === 2) signed ? v.setInt16(at, Number(value)) : v.setUint16(at, Number(value));
    else if (size === 4) signed ? v.setInt32(at, Number(value)) : v.setUint32(at, Number(value));
    else if (size === 8) signed ? v.setBigInt64(at, BigInt(value)) : v.setBigUint64(at, BigInt(value));
    this.pos += size;
  }

  raw(chunk: Uint8Array): void {
    this.ensure(chunk.length);
    this.bytes.set(chunk, this.pos);
    this.pos += chunk.length;
  }

  /** A length-prefixed item: fix form when `fix` allows it, else the 8/16/32-bit forms. */
  sized(n: number, fix: number, fixMax: number, t8: number, t16: number, t32: number): void {
    if (n <= fixMax) this.u8(fix | n);
    else if (n < 0x100 && t8) this.head(t8, 1, n);
    else if (n < 0x10000) this.head(t16, 2, n);
    else this.head(t32, 4, n);
  }
}

function writeInt(w: Writer, n: number | bigint): void {
  if (n >= 0) {
    if (n < 0x80) w.u8(Number(n));
    else if (n < 0x100) w.head(0xcc, 1, n);
    else if (n < 0x10000) w.head(0xcd, 2, n);
    else if (n < 0x100000000) w.head(0xce, 4, n);
    else w.head(0xcf, 8, n);
  } else if (n >= -0x20) w.u8(0x100 + Number(n));
  else if (n >= -0x80) w.head(0xd0, 1, n, true);
  else if (n >= -0x8000) w.head(0xd1, 2, n, true);
  else if (n >= -0x80000000) w.head(0xd2, 4, n, true);
  else w.head(0xd3, 8, n, true);
}

function write(w: Writer, value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw new Error('msgpack: too deep');
  if (value === null || value === undefined) return w.u8(0xc0);
  if (value === false || value === true) return w.u8(value ? 0xc3 : 0xc2);
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value < 2 ** 64 && value >= -(2 ** 63)) return writeInt(w, value);
    const float = new Uint8Array(9);
    float[0] = 0xcb;
    new DataView(float.buffer).setFloat64(1, value);
    return w.raw(float);
  }
  if (typeof value === 'bigint') return writeInt(w, value);
  if (typeof value === 'string') {
    const bytes = utf8.encode(value);
    w.sized(bytes.length, 0xa0, 31, 0xd9, 0xda, 0xdb);
    return w.raw(bytes);
  }
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
    const bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
    w.sized(bytes.length, 0, -1, 0xc4, 0xc5, 0xc6);
    return w.raw(bytes);
  }
  if (Array.isArray(value)) {
    w.sized(value.length, 0x90, 15, 0, 0xdc, 0xdd);
    for (const item of value) write(w, item, depth + 1);
    return;
  }
  if (typeof value === 'object') {
    const entries = (value instanceof Map ? [...value] : Object.entries(value)).filter(([, v]) => v !== undefined);
    w.sized(entries.length, 0x80, 15, 0, 0xde, 0xdf);
    for (const [key, item] of entries) {
      write(w, key, depth + 1);
      write(w, item, depth + 1);
    }
    return;
  }
  throw new Error(`msgpack: cannot encode ${typeof value}`);
}

export function encodeValue(value: unknown): Uint8Array {
  const w = new Writer();
  write(w, value, 0);
  return w.bytes.slice(0, w.pos);
}

class Reader {
  pos = 0;
  readonly view: DataView;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  take(n: number): number {
    const at = this.pos;
    if (at + n > this.bytes.length) throw new Error('msgpack: truncated');
    this.pos += n;
    return at;
  }

  uint(size: number): number {
    const v = this.view;
    const at = this.take(size);
    if (size === 1) return v.getUint8(at);
    if (size === 2) return v.getUint16(at);
    if (size === 4) return v.getUint32(at);
    return v.getUint32(at) * 2 ** 32 + v.getUint32(at + 4);
  }

  int(size: number): number {
    const v = this.view;
    const at = this.take(size);
    if (size === 1) return v.getInt8(at);
    if (size === 2) return v.getInt16(at);
    if (size === 4) return v.getInt32(at);
    return v.getInt32(at) * 2 ** 32 + v.getUint32(at + 4);
  }
}

function readStr(r: Reader, n: number): string {
  const at = r.take(n);
  return utf8Decoder.decode(r.bytes.subarray(at, at + n));
}

function readArray(r: Reader, n: number, depth: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < n; i += 1) out.push(read(r, depth + 1));
  return out;
}

function readMap(r: Reader, n: number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i += 1) {
    const key = read(r, depth + 1);
    if (typeof key !== 'string' && typeof key !== 'number') throw new Error('msgpack: map key');
    const value = read(r, depth + 1);
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
}

function read(r: Reader, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new Error('msgpack: too deep');
  const b = r.uint(1);
  if (b < 0x80) return b;
  if (b < 0x90) return readMap(r, b & 0x0f, depth);
  if (b < 0xa0) return readArray(r, b & 0x0f, depth);
  if (b < 0xc0) return readStr(r, b & 0x1f);
  if (b >= 0xe0) return b - 0x100;
  switch (b) {
    case 0xc0: return null;
    case 0xc2: return false;
    case 0xc3: return true;
    case 0xc4: case 0xc5: case 0xc6: {
      const n = r.uint(1 << (b - 0xc4));
      const at = r.take(n);
      return r.bytes.slice(at, at + n);
    }
    case 0xca: return r.view.getFloat32(r.take(4));
    case 0xcb: return r.view.getFloat64(r.take(8));
    case 0xcc: case 0xcd: case 0xce: case 0xcf: return r.uint(1 << (b - 0xcc));
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: return r.int(1 << (b - 0xd0));
    case 0xd9: case 0xda: case 0xdb: return readStr(r, r.uint(1 << (b - 0xd9)));
    case 0xdc: case 0xdd: return readArray(r, r.uint(2 << (b - 0xdc)), depth);
    case 0xde: case 0xdf: return readMap(r, r.uint(2 << (b - 0xde)), depth);
  }
  throw new Error(`msgpack: unsupported type 0x${b.toString(16)}`);
}

export function decodeValue(bytes: ArrayBuffer | Uint8Array): unknown {
  const r = new Reader(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  const value = read(r, 0);
  if (r.pos !== r.bytes.length) throw new Error('msgpack: trailing bytes');
  return value;
}

export type Dict = Record<string, unknown>;

// ----- client -> server (the envelope `t, s, a` is added by `encodeClientFrame`)

/** A phone's companion join (PROTOCOL.md, "Companion"). */
export type CompanionJoin = { session: string; public_key: string; nonce: string; signature: string };

export type ClientBody =
  | {
      t: 'join';
      project: string;
      resume?: string;
      last?: number;
      /** A phone joining a session it was linked to (PROTOCOL.md, "Companion"); never with `resume`. */
      companion?: CompanionJoin;
      env: Dict;
      opts: Dict;
      wallets: Dict[];
    }
  | { t: 'intent'; iid: string; node: string; act: string; args: Dict }
  | {
      t: 'effect_result';
      eid: string;
      ok: boolean;
      result?: unknown;
      error?: { code: number; message: string };
    }
  | { t: 'wallet_event'; connector: string; event: string; data: unknown }
  | { t: 'resync'; v: number }
  | { t: 'leave' }
  | { t: 'ack' };

/** Field order of each client frame after the envelope, as PROTOCOL.md lists it. */
const CLIENT_FIELDS: Record<ClientBody['t'], readonly string[]> = {
  join: ['project', 'resume', 'last', 'companion', 'env', 'opts', 'wallets'],
  intent: ['iid', 'node', 'act', 'args'],
  effect_result: ['eid', 'ok', 'result', 'error'],
  wallet_event: ['connector', 'event', 'data'],
  resync: ['v'],
  leave: [],
  ack: [],
};

/** The frame as the map that goes on the wire, keys in protocol order. */
export function clientFrame(body: ClientBody, s: number, a: number): Dict {
  const frame: Dict = { t: body.t, s, a };
  const fields = body as unknown as Dict;
  for (const key of CLIENT_FIELDS[body.t]) {
    if (fields[key] !== undefined) frame[key] = fields[key];
  }
  if (body.t === 'effect_result' && body.ok && !('result' in frame)) frame.result = null;
  return frame;
}

export function encodeClientFrame(body: ClientBody, s: number, a: number): Uint8Array {
  return encodeValue(clientFrame(body, s, a));
}

// ----- server -> client: the types and the field table are generated from the engine's typed
// frames (modalcore/wire/serverframes.py), so the two sides cannot drift apart.

export type { ServerFrame } from './frames.gen';

function isMap(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function fits(value: unknown, kind: FieldCheck): boolean {
  if (typeof kind !== 'string') return typeof value === 'string' && kind.includes(value);
  switch (kind) {
    case 'str':
      return typeof value === 'string';
    case 'str?':
      return value === undefined || typeof value === 'string';
    case 'int':
      return Number.isSafeInteger(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'map':
      return isMap(value);
    case 'list':
      return Array.isArray(value);
    case 'node':
      return isMap(value) && typeof value.id === 'string' && typeof value.t === 'string';
  }
}

export class FrameError extends Error {}

/** Decodes and checks one server frame; throws FrameError on anything else. */
export function decodeServerFrame(bytes: ArrayBuffer | Uint8Array): ServerFrame {
  let value: unknown;
  try {
    value = decodeValue(bytes);
  } catch (error) {
    throw new FrameError(`undecodable frame: ${String(error)}`);
  }
  if (!isMap(value)) throw new FrameError('a frame is a map');
  const t = value.t;
  const fields = typeof t === 'string' ? SERVER_FIELDS[t as ServerFrame['t']] : undefined;
  if (!fields || !Object.hasOwn(SERVER_FIELDS, t as string)) {
    throw new FrameError(`unknown frame type ${String(t)}`);
  }
  if (!fits(value.s, 'int') || !fits(value.a, 'int')) throw new FrameError('bad envelope');
  for (const [key, kind] of Object.entries(fields)) {
    if (!fits(value[key], kind)) throw new FrameError(`${String(t)}.${key}: expected ${kind}`);
  }
  return value as unknown as ServerFrame;
}
