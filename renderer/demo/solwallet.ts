/**
 * The Solana Dev Wallet: a Wallet Standard wallet for the demo and the tests (never for real
 * funds). Its key is dev account 0 of the local Solana dev chain (the same seed as
 * modalcore/solana/devchain/accounts.py: sha256("modalcore solana devchain account 0")), signing
 * with Ed25519 from `@noble/curves`. It registers itself with `wallet-standard:register-wallet`
 * and answers `wallet-standard:app-ready`; features: standard:connect, standard:events,
 * solana:signMessage, solana:signTransaction. It only signs: the engine submits.
 * Tests drive it through `window.solanaDevWallet` (reject the next prompt, read the prompts).
 */
import { ed25519 } from '@noble/curves/ed25519.js';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const CHAINS = ['solana:mainnet', 'solana:devnet', 'solana:testnet', 'solana:localnet'] as const;
const ICON =
  'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"%3E%3Crect width="32" height="32" rx="8" fill="%239945FF"/%3E%3Cpath d="M8 11h14l2-2H10zm0 6h14l2-2H10zm0 6h14l2-2H10z" fill="%23fff"/%3E%3C/svg%3E';

export function base58(bytes: Uint8Array): string {
  let digits = [0];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += digits[i] << 8;
      digits[i] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let out = '';
  for (const byte of bytes) {
    if (byte !== 0) break;
    out += '1';
  }
  digits = digits.reverse();
  return out + digits.map((d) => ALPHABET[d]).join('');
}

/** compact-u16 (Solana's short vector length): value and bytes read. */
function shortVec(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i];
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return [value, i + 1];
  }
  throw new Error('bad length');
}

/** Sign a serialized transaction in place: our signature goes in our account's slot. */
function signTransaction(tx: Uint8Array, secret: Uint8Array, publicKey: Uint8Array): Uint8Array {
  const [count, width] = shortVec(tx, 0);
  const messageAt = width + 64 * count;
  const message = tx.slice(messageAt);
  let at = message[0] & 0x80 ? 1 : 0; // a versioned message starts with its version byte
  const required = message[at];
  at += 3;
  const [keys, keysWidth] = shortVec(message, at);
  at += keysWidth;
  for (let i = 0; i < Math.min(keys, required, count); i++) {
    const key = message.slice(at + 32 * i, at + 32 * (i + 1));
    if (key.every((b, j) => b === publicKey[j])) {
      const signed = tx.slice();
      signed.set(ed25519.sign(message, secret), width + 64 * i);
      return signed;
    }
  }
  throw { code: 4100, message: 'the transaction does not need this account' };
}

interface Prompt {
  method: string;
  at: number;
}

export interface SolanaDevWalletControls {
  readonly address: string;
  readonly requests: Prompt[];
  rejectNext(code?: number, message?: string): void;
}

declare global {
  interface Window {
    solanaDevWallet?: SolanaDevWalletControls;
  }
}

export async function installSolanaDevWallet(label = 'modalcore solana devchain account 0'): Promise<void> {
  const seed = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(label)));
  const publicKey = ed25519.getPublicKey(seed);
  const address = base58(publicKey);
  const requests: Prompt[] = [];
  let reject: { code: number; message: string } | null = null;
  let connected = false;
  const listeners = new Set<(props: unknown) => void>();
  const account = { address, publicKey, chains: CHAINS, features: ['solana:signMessage', 'solana:signTransaction'] };

  function prompt(method: string): void {
    requests.push({ method, at: Date.now() });
    if (requests.length > 200) requests.splice(0, requests.length - 200);
    if (reject) {
      const error = reject;
      reject = null;
      throw error;
    }
  }

  const wallet = {
    version: '1.0.0' as const,
    name: 'Solana Dev Wallet',
    icon: ICON,
    chains: CHAINS,
    get accounts() {
      return connected ? [account] : [];
    },
    features: {
      'standard:connect': {
        version: '1.0.0',
        connect: async (input?: { silent?: boolean }) => {
          if (input?.silent) {
            // no prompt: the page reloaded; granted again only if it was connected in this tab
            connected = connected || sessionStorage.getItem('solanaDevWallet.connected') === '1';
            return { accounts: connected ? [account] : [] };
          }
          prompt('standard:connect');
          sessionStorage.setItem('solanaDevWallet.connected', '1');
          connected = true;
          for (const l of listeners) l({ accounts: [account] });
          return { accounts: [account] };
        },
      },
      'standard:events': {
        version: '1.0.0',
        on: (_event: string, listener: (props: unknown) => void) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
      'solana:signMessage': {
        version: '1.0.0',
        signMessage: async (...inputs: Array<{ message: Uint8Array }>) => {
          prompt('solana:signMessage');
          return inputs.map(({ message }) => ({ signedMessage: message, signature: ed25519.sign(message, seed) }));
        },
      },
      'solana:signTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        signTransaction: async (...inputs: Array<{ transaction: Uint8Array }>) => {
          prompt('solana:signTransaction');
          return inputs.map(({ transaction }) => ({
            signedTransaction: signTransaction(transaction, seed, publicKey),
          }));
        },
      },
    },
  };

  const register = (api: { register(w: unknown): unknown }): void => {
    api.register(wallet);
  };
  window.addEventListener('wallet-standard:app-ready', (event) => register((event as CustomEvent).detail));
  window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: register }));
  window.solanaDevWallet = {
    address,
    requests,
    rejectNext(code = 4001, message = 'User rejected the request.') {
      reject = { code, message };
    },
  };
}
