import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The shell's styles (colour variables) first, then each feature's styles with its components.
import './shell/shell.css';
import { App } from './shell/App';
import { applyTheme, readSavedTheme } from './shell/theme';

applyTheme(readSavedTheme());

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
