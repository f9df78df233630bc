/**
 * The renderer's Content-Security-Policy, in one place. The Electron glue sends it as a response
 * header, the renderer build writes it into index.html's `<meta>` tag, and the end-to-end test
 * server sends it as a header too, so tests run under the policy the app ships with.
 *
 * @module
 */

/**
 * Directive name to allowed sources. Everything comes from the app's own files: no remote
 * scripts, no `unsafe-eval`, no inline scripts, no inline `<style>` elements. CodeMirror 6
 * adds a `<style>` element to a normal document (which this policy blocks) but uses constructable
 * stylesheets (`adoptedStyleSheets`, not governed by style-src) inside a shadow root, so every
 * editor is mounted in its own shadow root (renderer/src/editor/CodeEditor.tsx). Should something ever
 * need a `<style>` element, give it a nonce (`EditorView.cspNonce`) rather than loosening this.
 */
const contentSecurityPolicyDirectives: Readonly<Record<string, readonly string[]>> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'worker-src': ["'self'"],
  'object-src': ["'none'"],
  'frame-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
};

/** Extra sources the Vite dev server needs; never used by a build. */
export interface DevelopmentPolicyAllowances {
  /** `'sha256-...'` sources of the inline scripts Vite injects (React Refresh preamble). */
  inlineScriptHashes: readonly string[];
  /** Vite injects imported CSS as `<style>` elements while developing. */
  allowInlineStyles: boolean;
}

/**
 * The policy as one header/meta value. Without `development` this is the shipped policy.
 */
export function buildContentSecurityPolicy(development?: DevelopmentPolicyAllowances): string {
  const directives = Object.entries(contentSecurityPolicyDirectives).map(([name, sources]) => {
    const all = [...sources];
    if (development !== undefined && name === 'script-src') all.push(...development.inlineScriptHashes);
    if (development?.allowInlineStyles === true && name === 'style-src') all.push("'unsafe-inline'");
    return `${name} ${all.join(' ')}`;
  });
  return directives.join('; ');
}

/** The shipped policy: the header value and the index.html `<meta>` content. */
export const contentSecurityPolicy: string = buildContentSecurityPolicy();
