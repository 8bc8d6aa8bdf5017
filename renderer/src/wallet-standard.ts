/**
 * Wallet Standard discovery for the bridge (https://github.com/wallet-standard/wallet-standard):
 * the page listens for `wallet-standard:register-wallet` and announces itself with
 * `wallet-standard:app-ready`; each registered wallet that has Solana chains and
 * `standard:connect` becomes a connector announced with `namespaces: ["solana"]`. The engine's
 * `solana` effects run here on the wallet's features (PROTOCOL.md, effect kinds); bytes travel
 * as base64.
 */

export interface StandardAccount {
  address: string;
  publicKey?: Uint8Array;
  chains?: readonly string[];
  features?: readonly string[];
}

export interface StandardWallet {
  version?: string;
  name: string;
  icon?: string;
  chains?: readonly string[];
  accounts?: readonly StandardAccount[];
  features: Record<string, unknown>;
}

type Req = Record<string, unknown>;
type AnyFn = (...args: unknown[]) => Promise<unknown>;

export const REGISTER = 'wallet-standard:register-wallet';
export const APP_READY = 'wallet-standard:app-ready';

export function isSolanaWallet(value: unknown): value is StandardWallet {
  const w = value as StandardWallet | null;
  if (typeof w !== 'object' || w === null || typeof w.name !== 'string' || typeof w.features !== 'object') return false;
  const chains = Array.isArray(w.chains) ? w.chains : [];
  return chains.some((c) => typeof c === 'string' && c.startsWith('solana:')) && 'standard:connect' in w.features;
}

export function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

export function fromBase64(text: string): Uint8Array {
  const raw = atob(text);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function method(wallet: StandardWallet, feature: string, name: string): AnyFn {
  const f = wallet.features[feature] as Record<string, unknown> | undefined;
  const fn = f?.[name];
  if (typeof fn !== 'function') throw { code: 4200, message: `${wallet.name} does not support ${feature}` };
  return (fn as AnyFn).bind(f);
}

function account(wallet: StandardWallet, address: unknown): StandardAccount {
  const found = (wallet.accounts ?? []).find((a) => a.address === address);
  if (!found) throw { code: 4100, message: 'the account is not connected' };
  return found;
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/** Runs one `solana` effect on a Wallet Standard wallet. */
export async function runSolana(wallet: StandardWallet, req: Req): Promise<unknown> {
  const params = (typeof req.params === 'object' && req.params !== null ? req.params : {}) as Req;
  switch (text(req.method, 64)) {
    case 'standard:connect': {
      const connect = method(wallet, 'standard:connect', 'connect');
      const out = (await (params.silent === true ? connect({ silent: true }) : connect())) as {
        accounts?: StandardAccount[];
      };
      const accounts = out?.accounts ?? wallet.accounts ?? [];
      return accounts.map((a) => a.address).slice(0, 32);
    }
    case 'solana:signTransaction': {
      const input = {
        account: account(wallet, params.account),
        transaction: fromBase64(text(params.transaction, 4096)),
        chain: text(params.chain, 64),
      };
      const [out] = (await method(wallet, 'solana:signTransaction', 'signTransaction')(input)) as Array<{
        signedTransaction: Uint8Array;
      }>;
      return { transaction: toBase64(out.signedTransaction) };
    }
    case 'solana:signMessage': {
      const input = { account: account(wallet, params.account), message: fromBase64(text(params.message, 16_384)) };
      const [out] = (await method(wallet, 'solana:signMessage', 'signMessage')(input)) as Array<{ signature: Uint8Array }>;
      return { signature: toBase64(out.signature) };
    }
    default:
      throw { code: -32601, message: `unknown solana method ${text(req.method, 64)}` };
  }
}
