/**
 * What the scratch app's wagmi pages (app.tsx, hooks.tsx) share: the dev chains, reached through
 * the engine's `/devchain` proxy on the page's origin, and the providers an app mounts under
 * (StrictMode, wagmi, react-query, the modal).
 */
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { defineChain } from 'viem';
import { WagmiProvider, type Config } from 'wagmi';
import { ModalProvider, type ModalProviderProps } from '@modalcore/sdk/react';

export const origin = window.location.origin;

export const devChain = (id: number) => defineChain({
  id,
  name: `Dev Chain ${id}`,
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [`${origin}/devchain/${id}`] } },
});

/** Renders `app` into #app under wagmi's `config`, a react-query client and `modal`. */
export function mount(config: Config, modal: ModalProviderProps['modal'], app: ReactNode): void {
  const queryClient = new QueryClient();
  createRoot(document.getElementById('app')!).render(
    <StrictMode>
      <WagmiProvider config={config}>
        <QueryClientProvider client={queryClient}>
          <ModalProvider modal={modal}>
            {app}
          </ModalProvider>
        </QueryClientProvider>
      </WagmiProvider>
    </StrictMode>,
  );
}
