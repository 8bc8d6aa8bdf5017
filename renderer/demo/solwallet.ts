/**
 * The Solana Dev Wallet: a Wallet Standard wallet for the demo and the tests (never for real
 * funds). Its key is dev account 0 of the local Solana dev chain (the same seed as
 * modalcore_dev/solana_devchain/accounts.py: sha256("modalcore solana devchain account 0")), signing
 * with Ed25519 from `@noble/curves`. It registers itself with `wallet-standard:register-wallet`
 * and answers `wallet-standard:app-ready`; features: standard:connect, standard:events,
 * solana:signMessage, solana:signTransaction, solana:signAndSendTransaction (signs, submits
 * with `sendTransaction` to its RPC URL, returns the signature) and solana:signIn (Sign-In With
 * Solana: the input's fields written as the SIWS message, signed). The engine itself only asks
 * for signatures and submits on its own.
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

/** The transaction's first signature: its id on the chain. */
function firstSignature(tx: Uint8Array): Uint8Array {
  const [count, width] = shortVec(tx, 0);
  if (count < 1) throw { code: -32602, message: 'the transaction has no signature slot' };
  return tx.slice(width, width + 64);
}

function base64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** Sign-In With Solana input (Wallet Standard solana:signIn), every field optional. */
export interface SolanaSignInInput {
  domain?: string;
  address?: string;
  statement?: string;
  uri?: string;
  version?: string;
  chainId?: string;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/** The SIWS message text (the ABNF of the Solana sign-in spec, as @solana/wallet-standard-util writes it). */
export function signInMessage(input: SolanaSignInInput & { domain: string; address: string }): string {
  let message = `${input.domain} wants you to sign in with your Solana account:\n${input.address}`;
  if (input.statement) message += `\n\n${input.statement}`;
  const fields: string[] = [];
  if (input.uri) fields.push(`URI: ${input.uri}`);
  if (input.version) fields.push(`Version: ${input.version}`);
  if (input.chainId) fields.push(`Chain ID: ${input.chainId}`);
  if (input.nonce) fields.push(`Nonce: ${input.nonce}`);
  if (input.issuedAt) fields.push(`Issued At: ${input.issuedAt}`);
  if (input.expirationTime) fields.push(`Expiration Time: ${input.expirationTime}`);
  if (input.notBefore) fields.push(`Not Before: ${input.notBefore}`);
  if (input.requestId) fields.push(`Request ID: ${input.requestId}`);
  if (input.resources?.length) fields.push(`Resources:${input.resources.map((r) => `\n- ${r}`).join('')}`);
  if (fields.length) message += `\n\n${fields.join('\n')}`;
  return message;
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

/**
 * `rpcUrl`: where solana:signAndSendTransaction submits (the demo: the engine's dev chain proxy).
 */
export async function installSolanaDevWallet(
  rpcUrl: string,
  label = 'modalcore solana devchain account 0',
): Promise<void> {
  const seed = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(label)));
  const publicKey = ed25519.getPublicKey(seed);
  const address = base58(publicKey);
  const requests: Prompt[] = [];
  let reject: { code: number; message: string } | null = null;
  let connected = false;
  const listeners = new Set<(props: unknown) => void>();
  const account = { address, publicKey, chains: CHAINS, features: ['solana:signMessage', 'solana:signTransaction', 'solana:signAndSendTransaction', 'solana:signIn'],
  };

  async function send(signed: Uint8Array): Promise<Uint8Array> {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'sendTransaction',
        params: [base64(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }],
      }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { code?: number; message?: string } };
    if (body.error || typeof body.result !== 'string') {
      throw { code: body.error?.code ?? -32603, message: body.error?.message ?? 'the RPC gave no signature' };
    }
    const signature = firstSignature(signed);
    if (body.result !== base58(signature)) throw { code: -32603, message: 'the RPC returned another signature' };
    return signature;
  }

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
      'solana:signAndSendTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        signAndSendTransaction: async (...inputs: Array<{ transaction: Uint8Array }>) => {
          prompt('solana:signAndSendTransaction');
          const out: Array<{ signature: Uint8Array }> = [];
          for (const { transaction } of inputs) {
            out.push({ signature: await send(signTransaction(transaction, seed, publicKey)) });
          }
          return out;
        },
      },
      'solana:signIn': {
        version: '1.0.0',
        signIn: async (...inputs: SolanaSignInInput[]) => {
          prompt('solana:signIn');
          const signed = inputs.map((input) => {
            if (input.address !== undefined && input.address !== address) {
              throw { code: 4100, message: 'this wallet has no such account' };
            }
            const text = signInMessage({ ...input, domain: input.domain ?? window.location.host, address });
            const signedMessage = new TextEncoder().encode(text);
            return { account, signedMessage, signature: ed25519.sign(signedMessage, seed), signatureType: 'ed25519' };
          });
          // signing in connects the account (Wallet Standard solana:signIn)
          sessionStorage.setItem('solanaDevWallet.connected', '1');
          if (!connected) {
            connected = true;
            for (const l of listeners) l({ accounts: [account] });
          }
          return signed;
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
