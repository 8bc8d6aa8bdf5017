/**
 * The demo dApp: a host page that uses the modal through its public API only. It draws with the
 * React copy inside /static/modal.js (the build maps `react` to window.ModalCore.React).
 */
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { installDevWallet } from './devwallet';
import { installSolanaDevWallet } from './solwallet';
import type * as ModalCoreApi from '../src/index';
import type { Modal } from '../src/host';

declare global {
  interface Window {
    ModalCore: typeof ModalCoreApi;
    demoModal?: Modal;
  }
}

type Dict = Record<string, unknown>;

function meta(name: string, fallback: string): string {
  return document.querySelector(`meta[name="${name}"]`)?.getAttribute('content')?.trim() || fallback;
}

const projectId = meta('modalcore-project', 'demo');
const query = new URLSearchParams(location.search);
// `?networks=eip155:31337,solana:CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3` asks for other networks
// (`make run` prints the address with the local Solana dev chain).
const networks = (query.get('networks') || meta('modalcore-networks', 'eip155:31337,eip155:31338'))
  .split(',')
  .map((id) => id.trim())
  .filter(Boolean);

// The Dev Wallet reaches each dev chain through the engine's `/devchain/{chainId}` proxy (same
// origin, whatever port the node runs on); `?rpc31337=<url>` points one chain elsewhere.
installDevWallet({
  chains: networks
    .filter((id) => id.startsWith('eip155:'))
    .map((id) => {
      const chainId = Number(id.slice('eip155:'.length));
      return { chainId, rpcUrl: query.get(`rpc${chainId}`) || `/devchain/${chainId}`, name: `Dev Chain ${chainId}` };
    }),
});

// The Solana Dev Wallet (Wallet Standard), registered before the modal starts its bridge; its
// solana:signAndSendTransaction submits through the same proxy to the local Solana dev chain
// (LiteSVM's genesis hash; `?solrpc=<url>` points it elsewhere).
void installSolanaDevWallet(query.get('solrpc') || '/devchain/CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3');

// `?siwx=required` or `?siwx=optional` turns sign-in on (the page's "Sign-in" switch sets it);
// `?theme=light` starts in the light theme (the page's "Theme" switch changes it live and is
// remembered, so after a reload the page and the resumed modal agree);
// `?locale=de` (or es, ja, ar) sets the language the engine renders, else the browser's.
const locale = query.get('locale') || undefined;
const siwxMode = query.get('siwx');
const THEME_KEY = 'modalcore-demo-theme';
const storedTheme = (() => { try { return localStorage.getItem(THEME_KEY); } catch { return null; } })();
const startTheme = (query.get('theme') ?? storedTheme) === 'light' ? 'light' : 'dark';
document.documentElement.dataset.theme = startTheme;
const siwx = siwxMode === 'required' || siwxMode === 'optional' ? { required: siwxMode === 'required' } : undefined;

const { createModal, ConnectButton } = window.ModalCore;
const modal = createModal({
  projectId,
  networks,
  defaultNetwork: networks[0],
  metadata: {
    name: 'Modalcore demo dApp',
    description: 'A small dApp that uses the modalcore modal',
    url: location.origin,
    icons: [],
  },
  debug: true,
  themeMode: startTheme,
  ...(siwx ? { siwx } : {}),
  ...(locale ? { locale } : {}),
});
window.demoModal = modal;

function useHost(subscribe: (cb: (data: Dict) => void) => () => void): Dict | null {
  const [data, setData] = useState<Dict | null>(null);
  useEffect(() => subscribe(setData), [subscribe]);
  return data;
}

const show = (value: unknown) => (value ? JSON.stringify(value, null, 1) : '—');

function utf8Hex(text: string): string {
  return `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function describe(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  return `error ${String(e?.code ?? '')}: ${String(e?.message ?? error)}`;
}

function App() {
  const state = useHost(modal.subscribeState);
  const account = useHost(modal.subscribeAccount);
  const network = useHost(modal.subscribeNetwork);
  const signIn = useHost(modal.subscribeSiwx);
  const [result, setResult] = useState('');
  const address = account?.isConnected && typeof account.address === 'string' ? account.address : '';

  const run = async (label: string, request: () => Promise<unknown>) => {
    setResult(`${label}…`);
    try {
      setResult(`${label}: ${JSON.stringify(await request())}`);
    } catch (error) {
      setResult(`${label}: ${describe(error)}`);
    }
  };
  const provider = () => modal.getProvider();
  const from = async () => {
    if (address) return address;
    const accounts = (await provider().request({ method: 'eth_accounts' })) as string[];
    return accounts[0] ?? '';
  };
  const sign = () =>
    run('personal_sign', async () =>
      provider().request({ method: 'personal_sign', params: [utf8Hex('Hello from the demo dApp'), await from()] }),
    );
  const send = () =>
    run('eth_sendTransaction', async () => {
      const self = await from();
      // 0.001 ETH to self
      return provider().request({ method: 'eth_sendTransaction', params: [{ from: self, to: self, value: '0x38d7ea4c68000' }] });
    });
  const active = typeof network?.caipNetworkId === 'string' ? network.caipNetworkId : '';
  const other = networks.find((id) => id !== active) ?? networks[0] ?? '';
  const switchNetwork = () => run(`switchNetwork ${other}`, () => modal.switchNetwork(other).then(() => 'requested'));
  const [theme, setTheme] = useState<'dark' | 'light'>(startTheme);
  const pickTheme = (mode: 'dark' | 'light') => {
    setTheme(mode);
    document.documentElement.dataset.theme = mode;
    try { localStorage.setItem(THEME_KEY, mode); } catch { /* storage off: the switch still works */ }
    void modal.setThemeMode(mode);
  };
  const siwxHref = (mode: string) => {
    const next = new URLSearchParams(location.search);
    if (mode === 'off') next.delete('siwx');
    else next.set('siwx', mode);
    const q = next.toString();
    return q ? `?${q}` : location.pathname;
  };
  const siwxNow = siwxMode === 'required' || siwxMode === 'optional' ? siwxMode : 'off';

  return (
    <>
      <header>
        <h1>Modalcore demo dApp</h1>
        <ConnectButton modal={modal} network />
      </header>
      <main>
        <section>
          <h2>Settings</h2>
          <div className="actions" role="group" aria-label="Theme">
            <span className="label">Theme</span>
            {(['dark', 'light'] as const).map((mode) => (
              <button key={mode} id={`theme-${mode}`} type="button" className="secondary" aria-pressed={theme === mode} onClick={() => pickTheme(mode)}>
                {mode === 'dark' ? 'Dark' : 'Light'}
              </button>
            ))}
          </div>
          <div className="actions" role="group" aria-label="Sign-in (SIWX)">
            <span className="label">Sign-in</span>
            {['off', 'optional', 'required'].map((mode) => (
              <a key={mode} id={`siwx-${mode}`} className="choice" href={siwxHref(mode)} aria-current={siwxNow === mode ? 'true' : undefined}>
                {mode === 'off' ? 'Off' : mode === 'optional' ? 'Optional' : 'Required'}
              </a>
            ))}
          </div>
        </section>
        <section>
          <h2>Modal</h2>
          <dl>
            <dt>state</dt>
            <dd id="state">{show(state)}</dd>
            <dt>account</dt>
            <dd id="account">{show(account)}</dd>
            <dt>network</dt>
            <dd id="network">{show(network)}</dd>
            <dt>sign-in</dt>
            <dd id="siwx">{show(signIn)}</dd>
          </dl>
        </section>
        <section>
          <h2>Wallet</h2>
          <div className="actions">
            <button id="sign" type="button" onClick={() => void sign()}>
              Sign a message
            </button>
            <button id="send" type="button" onClick={() => void send()}>
              Send 0.001 ETH to self
            </button>
            <button id="switch" className="secondary" type="button" onClick={() => void switchNetwork()}>
              Switch to {other}
            </button>
          </div>
          <p id="result">{result}</p>
        </section>
      </main>
    </>
  );
}

const app = document.getElementById('app');
if (app) createRoot(app).render(<App />);
