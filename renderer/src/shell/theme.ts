/** The two colour themes; dark is the default. */
export type Theme = 'dark' | 'light';

const storageKey = 'promptforge.theme';

/** The theme the person picked last time, or dark. */
export function readSavedTheme(): Theme {
  try {
    return window.localStorage.getItem(storageKey) === 'light' ? 'light' : 'dark';
  } catch {
    return 'dark';
  }
}

/** Switches the CSS variables (see shell/theme.css) and remembers the choice. */
export function applyTheme(theme: Theme): void {
  document.documentElement.dataset['theme'] = theme;
  try {
    window.localStorage.setItem(storageKey, theme);
  } catch {
    // Storage can be unavailable (e.g. an opaque origin); the theme still applies for this session.
  }
}
