/** Fakes for the transport tests: a socket, a clock and a storage. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeValue, encodeValue } from '../src/codec';
import type { Clock, SocketLike, StorageLike } from '../src/transport';

/** Reads a vector file from protocol/vectors/ (tests run from dist/test/). */
export function readVectors<T>(name: string): T {
  const dir = process.env.MODALCORE_VECTORS ?? fileURLToPath(new URL('../../../protocol/vectors/', import.meta.url));
  const path = `${dir.replace(/\/$/, '')}/${name}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`vector file missing: ${path} (the Python side writes it: protocol/vectors/make_vectors.py)`);
  }
  const value = JSON.parse(text) as unknown;
  if (!Array.isArray(value) || value.length === 0) throw new Error(`${path} holds no vectors`);
  return value as T;
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

export class FakeSocket implements SocketLike {
  binaryType = 'blob';
  readyState = 0;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason?: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  sent: Array<Record<string, unknown>> = [];
  closedWith: number | null = null;

  constructor(readonly url: string) {}

  send(data: Uint8Array): void {
    this.sent.push(decodeValue(data) as Record<string, unknown>);
  }

  close(code = 1000): void {
    this.closedWith = code;
  }

  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }

  /** The server sends a frame (encoded for real, delivered as an ArrayBuffer). */
  deliver(frame: Record<string, unknown>): void {
    const bytes = encodeValue(frame);
    this.onmessage?.({ data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
  }

  drop(code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code });
  }

  framesOf(t: string): Array<Record<string, unknown>> {
    return this.sent.filter((frame) => frame.t === t);
  }
}

export class FakeClock implements Clock {
  now = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  delays: number[] = [];

  constructor(private readonly rand = 0.5) {}

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.delays.push(ms);
    this.timers.push({ at: this.now + ms, fn, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  random(): number {
    return this.rand;
  }

  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      this.timers.sort((x, y) => x.at - y.at);
      const next = this.timers[0];
      if (!next || next.at > until) break;
      this.timers.shift();
      this.now = next.at;
      next.fn();
    }
    this.now = until;
  }
}

export class MemoryStorage implements StorageLike {
  items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}
