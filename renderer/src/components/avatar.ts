// Deterministic avatar gradient: a pure function of the address string (drawing only).

function hash(s: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** CSS `background` value for an address; case-insensitive, same input → same output. */
export function avatarGradient(address: string): string {
  const a = address.trim().toLowerCase();
  const h = hash(a, 0);
  const base = h % 360;
  const spread = 40 + ((h >>> 9) % 80);
  const c = (i: number): string => {
    const k = hash(a, i + 1);
    const hue = Math.round((base + spread * i + (k % 30)) % 360);
    return `hsl(${hue} ${62 + (k >>> 8) % 28}% ${50 + (k >>> 16) % 20}%)`;
  };
  const x = 20 + (h >>> 3) % 60;
  const y = 15 + (h >>> 13) % 50;
  return (
    `radial-gradient(75% 75% at ${x}% ${y}%, hsl(0 0% 100% / .9) 0%, ${c(0)} 28%, ${c(1)} 52%, ${c(2)} 72%, ${c(3)} 100%)`
  );
}
