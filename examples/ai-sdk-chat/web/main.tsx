import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('ai-sdk demo: #root is missing from index.html');

// StrictMode on purpose: its doubled effects must not send or resume anything twice.
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
