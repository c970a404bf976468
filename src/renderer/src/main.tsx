import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

function App() {
  return <h1>QuorumKey</h1>;
}

const root = document.getElementById('root');
if (!root) throw new Error('missing #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
