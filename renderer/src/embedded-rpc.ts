// The host dApp's EIP-1193 requests when the embedded wallet is the active connector (issue 15
// §4) or WalletConnect is (issue 13: the engine holds the WalletConnect session and sends the
// request over its relay): a request travels as the host intent `rpc` {id, method,
// params} and its answer comes back as the host event `rpc` with the same id (PROTOCOL.md).
// The engine applies behaviour.md §6's lists (safe methods at once, approval methods through the
// approval frame on its own origin, others 'Requested RPC call is not allowed'); nothing here
// decides or approves anything.
import type { Dict } from './store';

/** The auth connector's id (rules/embedded.py AUTH_CONNECTOR_ID). */
export const AUTH_CONNECTOR = 'ID_AUTH';

/** The WalletConnect connector's id (slices/connectors.py WALLET_CONNECT_ID). */
export const WALLET_CONNECT = 'walletConnect';

/** Whether the host's requests go to the engine for the active connector `connector`: the
 * embedded wallet is the engine, and the WalletConnect session lives in the engine. */
export function viaEngine(connector: string): boolean {
  return connector === AUTH_CONNECTOR || connector === WALLET_CONNECT;
}

export type RpcError = Error & { code: number };

function rpcError(code: number, message: string): RpcError {
  return Object.assign(new Error(message), { code });
}

/** Sends one request and resolves with the engine's answer for its id. `send` sends the host
 * intent (rejects when the engine does not take it); `subscribe` listens to host event `rpc`. */
export function embeddedRequest(
  send: (act: string, args: Dict) => Promise<void>,
  subscribe: (listener: (answer: Dict) => void) => () => void,
  id: string,
  args: { method: string; params?: unknown },
): Promise<unknown> {
  const params = args.params === undefined ? [] : args.params;
  if (!Array.isArray(params)) return Promise.reject(rpcError(-32602, 'params must be an array'));
  return new Promise((resolve, reject) => {
    let done = false;
    let stop: (() => void) | undefined;
    const finish = () => {
      done = true;
      stop?.();
    };
    stop = subscribe((answer) => {
      if (done || answer.id !== id) return;
      finish();
      if (answer.ok === true) resolve(answer.result ?? null);
      else reject(rpcError(Number(answer.code ?? -32603), String(answer.message ?? 'The request failed')));
    });
    if (done) stop();
    send('rpc', { id, method: args.method, params }).catch(() => {
      if (done) return;
      finish();
      reject(rpcError(-32602, 'Invalid request'));
    });
  });
}
