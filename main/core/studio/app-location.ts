/**
 * Where the renderer's one document is loaded from: the built `index.html` on the studio's own
 * scheme (`promptforge://studio/index.html`, served from out/renderer: app-protocol.ts), or the
 * Vite dev server during `npm run dev`.
 */
export type AppLocation =
  | {
      kind: 'app';
      /** The document's URL, `promptforge://studio/index.html` in the app (app-protocol.ts) */ indexUrl: string;
    }
  | { kind: 'dev-server'; /** e.g. `http://localhost:5173/` */ url: string };

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * Whether `url` is the studio's own document. For a build only the exact document qualifies (same
 * scheme, host and path: another file of the build is not the app); for the dev server, its
 * origin. Query and fragment are ignored.
 */
export function isAppDocumentUrl(url: string, location: AppLocation): boolean {
  const candidate = parseUrl(url);
  if (candidate === null) return false;
  if (location.kind === 'app') {
    const index = parseUrl(location.indexUrl);
    return (
      index !== null &&
      candidate.protocol === index.protocol &&
      candidate.host === index.host &&
      candidate.username === '' &&
      candidate.password === '' &&
      candidate.pathname === index.pathname
    );
  }
  const server = parseUrl(location.url);
  return (
    server !== null &&
    (candidate.protocol === 'http:' || candidate.protocol === 'https:') &&
    candidate.origin === server.origin
  );
}

/**
 * Whether the window may navigate to `url`. Only a reload of the studio's own document is
 * allowed; everything else (links, `location.href = ...`, drag-and-dropped files) is refused, so
 * injected content can never replace the app with a page that can reach `window.promptforge`.
 */
export function isAllowedNavigation(url: string, location: AppLocation): boolean {
  return isAppDocumentUrl(url, location);
}

/** What the glue knows about the frame that sent an IPC message. */
export interface IpcSenderFrame {
  /** The frame's current URL. */
  url: string;
  /** True only when the frame is the main frame of the studio's own window. */
  isStudioMainFrame: boolean;
}

/**
 * Whether an IPC call may be served: it must come from the main frame of the studio window, and
 * that frame must show the studio's own document (not an iframe, not a page navigated to).
 */
export function isTrustedSender(sender: IpcSenderFrame | null, location: AppLocation): boolean {
  return sender !== null && sender.isStudioMainFrame && isAppDocumentUrl(sender.url, location);
}
