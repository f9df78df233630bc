import type { Session, WebContents } from 'electron';
import { contentSecurityPolicy } from '../../common/content-security-policy.js';
import { isAllowedNavigation, type AppLocation } from '../core/studio/app-location.js';
import type { StudioLogger } from '../core/studio/studio-logger.js';

/**
 * Session-wide rules: the CSP header on every response and no permissions at all (camera,
 * notifications prompt, geolocation, clipboard-read, ...). The studio asks the OS for what it
 * needs from main, never through the web permission system.
 */
export function installSessionSecurity(session: Session, location: AppLocation, logger: StudioLogger): void {
  const devServerOrigin = location.kind === 'dev-server' ? new URL(location.url).origin : null;
  session.webRequest.onHeadersReceived((details, callback) => {
    // The dev server's page carries a dev-only policy in its <meta> tag (it allows the hash of
    // Vite's inline React Refresh preamble); a header would add a second, stricter policy.
    if (devServerOrigin !== null && details.url.startsWith(`${devServerOrigin}/`)) {
      callback({});
      return;
    }
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [contentSecurityPolicy] },
    });
  });
  session.setPermissionRequestHandler((_webContents, permission, callback) => {
    logger.warn('denied permission request', { permission });
    callback(false);
  });
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}

/**
 * Per-page rules for every WebContents the app creates: no navigation away from the studio's
 * document, no new windows, no <webview>.
 */
export function hardenWebContents(contents: WebContents, location: AppLocation, logger: StudioLogger): void {
  contents.on('will-navigate', (event, url) => {
    if (isAllowedNavigation(url, location)) return;
    event.preventDefault();
    logger.warn('blocked navigation', { url });
  });
  contents.on('will-redirect', (event, url) => {
    if (isAllowedNavigation(url, location)) return;
    event.preventDefault();
    logger.warn('blocked redirect', { url });
  });
  contents.setWindowOpenHandler(({ url }) => {
    logger.warn('blocked window.open', { url });
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    logger.warn('blocked <webview>');
  });
}
