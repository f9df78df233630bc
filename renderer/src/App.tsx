import { useState } from 'react';
import { AboutPanel } from './AboutPanel';
import { LogoMark } from './LogoMark';
import { WorkspaceEmptyState } from './WorkspaceEmptyState';
import { applyTheme, readSavedTheme, type Theme } from './theme';

const explorerSections = ['Agents', 'Tools', 'Models', 'Runs'] as const;

/** The studio shell: header, workspace explorer, main area and the About panel. */
export function App() {
  const [theme, setTheme] = useState<Theme>(readSavedTheme);
  const [aboutOpen, setAboutOpen] = useState(false);

  const toggleTheme = (): void => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    applyTheme(next);
    setTheme(next);
  };

  return (
    <div className="app-shell">
      <header className="app-header">
        <div className="brand">
          <LogoMark size={26} />
          <h1>PromptForge Studio</h1>
        </div>
        <div className="header-actions">
          <button
            type="button"
            className="button button-quiet"
            onClick={toggleTheme}
            aria-label={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
            title={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
          >
            <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span>
          </button>
          <button
            type="button"
            className="button"
            aria-expanded={aboutOpen}
            aria-controls="about-panel"
            onClick={() => setAboutOpen((open) => !open)}
          >
            About
          </button>
        </div>
      </header>

      <div className="app-body">
        <nav className="explorer" aria-label="Workspace explorer">
          {explorerSections.map((section) => (
            <section key={section} className="explorer-section" aria-label={section}>
              <h2>{section}</h2>
              <p className="muted">No workspace open</p>
            </section>
          ))}
        </nav>

        <main className="workspace-area">
          <WorkspaceEmptyState />
        </main>

        {aboutOpen ? <AboutPanel id="about-panel" onClose={() => setAboutOpen(false)} /> : null}
      </div>
    </div>
  );
}
