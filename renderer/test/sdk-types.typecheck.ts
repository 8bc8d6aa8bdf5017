// Types that catch mistakes (issue 40 item 5). `npm run typecheck` (tsc --strict, `make typecheck`)
// checks this file: each `@ts-expect-error` line must be an error, and tsc fails (TS2578, "unused
// '@ts-expect-error' directive") the day one of these mistakes compiles again. Never run.
// tests/e2e/test_sdk_npm_browser.py checks the same against the packed package in a scratch app.
import type { ModalOptions } from '../src/sdk/index';
import type { Modal } from '../src/host';
import type { ModalcoreConnectorFn } from '../src/sdk/wagmi';

const base = { projectId: 'demo', networks: ['eip155:1'], engineUrl: 'https://engine.example' } as const;

export const fine: ModalOptions = {
  ...base,
  features: { swaps: false, socials: ['google'], connectMethodsOrder: ['wallet', 'email'] },
  siwx: { required: true, statement: 'Sign in' },
  customWallets: [{ id: 'w', name: 'My Wallet', image_url: 'https://w.example/i.png' }],
  themeMode: 'light',
};

export const misspelledFeature: ModalOptions = {
  ...base,
  // @ts-expect-error a misspelled feature (swapz) is not an option
  features: { swapz: false },
};

export const misspelledSiwx: ModalOptions = {
  ...base,
  // @ts-expect-error a misspelled siwx option (requird)
  siwx: { requird: true },
};

export const misspelledOption: ModalOptions = {
  ...base,
  // @ts-expect-error a misspelled top-level option (featurs)
  featurs: { swaps: false },
};

export const wrongTheme: ModalOptions = {
  ...base,
  // @ts-expect-error themeMode is 'light' or 'dark'
  themeMode: 'blue',
};

export const customWalletTypo: ModalOptions = {
  ...base,
  // @ts-expect-error a custom wallet needs its `name` (nmae is not one)
  customWallets: [{ id: 'w', nmae: 'My Wallet' }],
};

export function views(modal: Modal): void {
  void modal.open({ view: 'Account' });
  void modal.open({ view: 'Networks' });
  // @ts-expect-error 'Acount' is not a view
  void modal.open({ view: 'Acount' });
  // @ts-expect-error ConnectingExternal needs a wallet the host API cannot name
  void modal.open({ view: 'ConnectingExternal' });
}

export function connectorIsNotAny(connector: ModalcoreConnectorFn): void {
  // @ts-expect-error the connector is wagmi's CreateConnectorFn, not `any`
  const n: number = connector;
  void n;
}
