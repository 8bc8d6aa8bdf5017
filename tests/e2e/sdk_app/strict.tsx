/**
 * `<ModalProvider options>` under React's StrictMode in a development build (the Vite and
 * Next.js templates' default): StrictMode unmounts and remounts every effect once. The modal must
 * survive it: one socket, one session, kept across a reload (issue 40 item 2).
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ModalProvider, useModal } from '@modalcore/sdk/react';

const origin = window.location.origin;

function Probe() {
  const { modal, state } = useModal();
  return <pre id="out">{JSON.stringify({ live: modal !== null, initialized: state.initialized })}</pre>;
}

createRoot(document.getElementById('app')!).render(
  <StrictMode>
    <ModalProvider options={{ projectId: 'demo', networks: ['eip155:31337'], engineUrl: origin }}>
      <Probe />
    </ModalProvider>
  </StrictMode>,
);
