// A compact QR Code encoder (ISO/IEC 18004): byte mode, levels L/M/Q/H, versions 1-40.
// Pure functions only; drawing lives in the `qr` component.

export type Ecl = 'L' | 'M' | 'Q' | 'H';
export interface QrMatrix {
  size: number;
  version: number;
  ecl: Ecl;
  mask: number;
  /** row-major, 1 = dark */
  modules: Uint8Array;
  /** row-major, 1 = function pattern (finder, timing, alignment, format, version) */
  fn: Uint8Array;
}

const ORDER: Ecl[] = ['L', 'M', 'Q', 'H'];
const FORMAT: Record<Ecl, number> = { L: 1, M: 0, Q: 3, H: 2 };
// Per version 1..40: error-correction codewords per block, and number of blocks.
const dec = (s: string): number[] => s.split(',').map(Number);
const ECC: Record<Ecl, number[]> = {
  L: dec('7,10,15,20,26,18,20,24,30,18,20,24,26,30,22,24,28,30,28,28,28,28,30,30,26,28,30,30,30,30,30,30,30,30,30,30,30,30,30,30'),
  M: dec('10,16,26,18,24,16,18,22,22,26,30,22,22,24,24,28,28,26,26,26,26,28,28,28,28,28,28,28,28,28,28,28,28,28,28,28,28,28,28,28'),
  Q: dec('13,22,18,26,18,24,18,22,20,24,28,26,24,20,30,24,28,28,26,30,28,30,30,30,30,28,30,30,30,30,30,30,30,30,30,30,30,30,30,30'),
  H: dec('17,28,22,16,22,28,26,26,24,28,24,28,22,24,24,30,28,28,26,28,30,24,30,30,30,30,30,30,30,30,30,30,30,30,30,30,30,30,30,30'),
};
const BLOCKS: Record<Ecl, number[]> = {
  L: dec('1,1,1,1,1,2,2,2,2,4,4,4,4,4,6,6,6,6,7,8,8,9,9,10,12,12,12,13,14,15,16,17,18,19,19,20,21,22,24,25'),
  M: dec('1,1,1,2,2,4,4,4,5,5,5,8,9,9,10,10,11,13,14,16,17,17,18,20,21,23,25,26,28,29,31,33,35,37,38,40,43,45,47,49'),
  Q: dec('1,1,2,2,4,4,6,6,8,8,8,10,12,16,12,17,16,18,21,20,23,23,25,27,29,34,34,35,38,40,43,45,48,51,53,56,59,62,65,68'),
  H: dec('1,1,2,4,4,4,5,6,8,8,11,11,16,16,18,16,19,21,25,25,25,34,30,32,35,37,40,42,45,48,51,54,57,60,63,66,70,74,77,81'),
};

function alignPositions(ver: number): number[] {
  if (ver === 1) return [];
  const n = Math.floor(ver / 7) + 2;
  const step = Math.floor((ver * 8 + n * 3 + 5) / (n * 4 - 4)) * 2;
  const out = [6];
  for (let pos = ver * 4 + 10; out.length < n; pos -= step) out.splice(1, 0, pos);
  return out;
}

function rawModules(ver: number): number {
  let r = (16 * ver + 128) * ver + 64;
  if (ver >= 2) {
    const n = Math.floor(ver / 7) + 2;
    r -= (25 * n - 10) * n - 55;
    if (ver >= 7) r -= 36;
  }
  return r;
}

const dataCodewords = (ver: number, e: Ecl): number =>
  (rawModules(ver) >> 3) - ECC[e][ver - 1] * BLOCKS[e][ver - 1];

// GF(256) with the polynomial 0x11D.
function mul(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z;
}

function rsDivisor(degree: number): number[] {
  const r = new Array<number>(degree).fill(0);
  r[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      r[j] = mul(r[j], root);
      if (j + 1 < degree) r[j] ^= r[j + 1];
    }
    root = mul(root, 2);
  }
  return r;
}

function rsRemainder(data: number[], div: number[]): number[] {
  const r = div.map(() => 0);
  for (const b of data) {
    const f = b ^ (r.shift() as number);
    r.push(0);
    div.forEach((c, i) => (r[i] ^= mul(c, f)));
  }
  return r;
}

const MASKS: ((x: number, y: number) => boolean)[] = [
  (x, y) => (x + y) % 2 === 0,
  (_x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

/** Encode `text` (UTF-8, byte mode). `ecl` is the minimum level; it is raised when free. */
export function encodeQR(text: string, opts: { ecl?: Ecl; mask?: number; boost?: boolean } = {}): QrMatrix {
  const bytes = new TextEncoder().encode(text);
  let e: Ecl = opts.ecl ?? 'M';
  let ver = 1;
  const bitsNeeded = (v: number): number => 4 + (v < 10 ? 8 : 16) + bytes.length * 8;
  while (bitsNeeded(ver) > dataCodewords(ver, e) * 8) {
    if (++ver > 40) throw new RangeError('QR data too long');
  }
  if (opts.boost !== false) {
    for (const hi of ORDER.slice(ORDER.indexOf(e) + 1)) {
      if (bitsNeeded(ver) <= dataCodewords(ver, hi) * 8) e = hi;
    }
  }

  // Data bit stream.
  const bits: number[] = [];
  const put = (val: number, len: number): void => {
    for (let i = len - 1; i >= 0; i--) bits.push((val >>> i) & 1);
  };
  put(4, 4);
  put(bytes.length, ver < 10 ? 8 : 16);
  bytes.forEach((b) => put(b, 8));
  const cap = dataCodewords(ver, e) * 8;
  put(0, Math.min(4, cap - bits.length));
  put(0, (8 - (bits.length % 8)) % 8);
  for (let pad = 0xec; bits.length < cap; pad ^= 0xec ^ 0x11) put(pad, 8);
  const data: number[] = [];
  for (let i = 0; i < bits.length; i += 8) data.push(parseInt(bits.slice(i, i + 8).join(''), 2));

  // Split in blocks, add error correction, interleave.
  const nBlocks = BLOCKS[e][ver - 1];
  const eccLen = ECC[e][ver - 1];
  const raw = rawModules(ver) >> 3;
  const nShort = nBlocks - (raw % nBlocks);
  const shortLen = Math.floor(raw / nBlocks);
  const div = rsDivisor(eccLen);
  const blocks: number[][] = [];
  for (let i = 0, k = 0; i < nBlocks; i++) {
    const d = data.slice(k, (k += shortLen - eccLen + (i < nShort ? 0 : 1)));
    const ecc = rsRemainder(d, div);
    if (i < nShort) d.push(0);
    blocks.push(d.concat(ecc));
  }
  const words: number[] = [];
  for (let i = 0; i < blocks[0].length; i++) {
    blocks.forEach((b, j) => {
      if (i !== shortLen - eccLen || j >= nShort) words.push(b[i]);
    });
  }

  // Function patterns.
  const size = ver * 4 + 17;
  const mod = new Uint8Array(size * size);
  const fn = new Uint8Array(size * size);
  const set = (x: number, y: number, dark: boolean): void => {
    mod[y * size + x] = dark ? 1 : 0;
    fn[y * size + x] = 1;
  };
  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 === 0);
    set(i, 6, i % 2 === 0);
  }
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const d = Math.max(Math.abs(dx), Math.abs(dy));
        const x = cx + dx;
        const y = cy + dy;
        if (x >= 0 && x < size && y >= 0 && y < size) set(x, y, d !== 2 && d !== 4);
      }
    }
  }
  const al = alignPositions(ver);
  al.forEach((ay, i) =>
    al.forEach((ax, j) => {
      const corner = (i === 0 && j === 0) || (i === 0 && j === al.length - 1) || (i === al.length - 1 && j === 0);
      if (corner) return;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) set(ax + dx, ay + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }),
  );
  const drawFormat = (mask: number): void => {
    const d = (FORMAT[e] << 3) | mask;
    let r = d;
    for (let i = 0; i < 10; i++) r = (r << 1) ^ ((r >>> 9) * 0x537);
    const f = ((d << 10) | r) ^ 0x5412;
    const bit = (i: number): boolean => ((f >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) set(8, i, bit(i));
    set(8, 7, bit(6));
    set(8, 8, bit(7));
    set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i));
    set(8, size - 8, true);
  };
  drawFormat(0);
  if (ver >= 7) {
    let r = ver;
    for (let i = 0; i < 12; i++) r = (r << 1) ^ ((r >>> 11) * 0x1f25);
    const v = (ver << 12) | r;
    for (let i = 0; i < 18; i++) {
      const dark = ((v >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      set(a, b, dark);
      set(b, a, dark);
    }
  }

  // Codewords in the zig-zag order.
  let bi = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const up = ((right + 1) & 2) === 0;
    for (let vert = 0; vert < size; vert++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const y = up ? size - 1 - vert : vert;
        if (!fn[y * size + x] && bi < words.length * 8) {
          mod[y * size + x] = (words[bi >>> 3] >>> (7 - (bi & 7))) & 1;
          bi++;
        }
      }
    }
  }

  const apply = (mask: number): void => {
    const m = MASKS[mask];
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) if (!fn[y * size + x] && m(x, y)) mod[y * size + x] ^= 1;
    }
    drawFormat(mask);
  };
  let mask = opts.mask ?? -1;
  if (mask < 0) {
    let best = Infinity;
    for (let m = 0; m < 8; m++) {
      apply(m);
      const p = penalty(mod, size);
      if (p < best) {
        best = p;
        mask = m;
      }
      apply(m); // xor again: undo
    }
  }
  apply(mask);
  return { size, version: ver, ecl: e, mask, modules: mod, fn };
}

/** The mask penalty (rules N1-N4 of the standard). */
export function penalty(mod: Uint8Array, size: number): number {
  let p = 0;
  let dark = 0;
  const at = (x: number, y: number, col: boolean): number => (col ? mod[x * size + y] : mod[y * size + x]);
  for (const col of [false, true]) {
    for (let y = 0; y < size; y++) {
      let run = 0;
      let prev = -1;
      let line = '';
      for (let x = 0; x < size; x++) {
        const c = at(x, y, col);
        line += c;
        if (c === prev) {
          run++;
          if (run === 5) p += 3;
          else if (run > 5) p++;
        } else {
          run = 1;
          prev = c;
        }
      }
      for (let i = line.indexOf('1011101'); i >= 0; i = line.indexOf('1011101', i + 1)) {
        if (line.slice(Math.max(0, i - 4), i) === '0000' || line.slice(i + 7, i + 11) === '0000') p += 40;
      }
    }
  }
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const c = mod[y * size + x];
      dark += c;
      if (x < size - 1 && y < size - 1 && c === mod[y * size + x + 1] && c === mod[(y + 1) * size + x] && c === mod[(y + 1) * size + x + 1]) p += 3;
    }
  }
  const total = size * size;
  return p + (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
}
