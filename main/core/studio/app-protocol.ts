/**
 * The studio's own URL scheme. The packaged app serves its renderer as
 * `promptforge://studio/index.html` instead of a `file:` URL: under `file:` the page's origin, and
 * so the CSP's `'self'`, is the whole disk (a script any agent wrote there could be loaded), and
 * the page would need Electron's extra `file:` privileges. Here `'self'` is the app's own built
 * files and nothing else. main/app/main.ts registers the scheme and hands each request to
 * {@link serveAppAsset}; everything that decides what is served is in this file, and tested in
 * plain Node.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { contentSecurityPolicy } from '../../../common/content-security-policy.js';

/** The scheme's name. */
export const APP_SCHEME = 'promptforge';
/** The one host the scheme serves. */
export const APP_HOST = 'studio';
/** The studio document's URL. */
export const APP_INDEX_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;
/**
 * What the scheme may do (Electron's `protocol.registerSchemesAsPrivileged`): a standard scheme
 * (relative URLs, an origin of its own) that counts as secure, so module scripts and `fetch` of the
 * app's own files work as they do on https. No `bypassCSP`, no `corsEnabled` for other origins.
 */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true, codeCache: true } as const;

/** The file types the renderer build contains; anything else is not served. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/** Which file answers a request, or why none does. */
export type AppAsset =
  { ok: true; file: string; contentType: string } | { ok: false; status: 400 | 404 | 405; reason: string };

/**
 * The file of `rendererDirectory` (out/renderer) that answers `url`, or a refusal: only GET and
 * HEAD, only `promptforge://studio/`, no user, port or encoded separators, no `..` (decoded or
 * not), only the file types of the build, and never a path outside the folder.
 */
export function resolveAppAsset(url: string, method: string, rendererDirectory: string): AppAsset {
  if (method !== 'GET' && method !== 'HEAD') return { ok: false, status: 405, reason: `method ${method}` };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, status: 400, reason: 'not a URL' };
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.hostname !== APP_HOST || parsed.port !== '')
    return { ok: false, status: 404, reason: `not ${APP_SCHEME}://${APP_HOST}/` };
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, status: 400, reason: 'user info' };
  const segments: string[] = [];
  for (const raw of parsed.pathname.split('/').slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { ok: false, status: 400, reason: 'bad percent-encoding' };
    }
    if (segment === '..' || segment === '.' || /[/\\\0]/.test(segment) || segment.includes(':'))
      return { ok: false, status: 404, reason: `path segment ${JSON.stringify(segment)}` };
    segments.push(segment);
  }
  if (segments.length === 0 || segments.at(-1) === '') segments.splice(-1, 1, 'index.html');
  if (segments.some((segment) => segment === '')) return { ok: false, status: 404, reason: 'empty path segment' };
  const root = path.resolve(rendererDirectory);
  const file = path.join(root, ...segments);
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
    return { ok: false, status: 404, reason: 'outside the renderer folder' };
  const contentType = CONTENT_TYPES[path.extname(file).toLowerCase()];
  if (contentType === undefined)
    return { ok: false, status: 404, reason: `file type ${path.extname(file) || '(none)'}` };
  return { ok: true, file, contentType };
}

/** The headers every answer carries: the studio's CSP, no sniffing, nothing cached across builds. */
function headers(contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    'content-security-policy': contentSecurityPolicy,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache',
  };
}

/**
 * Answers one request of the scheme (Electron's `protocol.handle` hands a `Request`, and takes a
 * `Response`): the file's bytes, or a short plain-text refusal. Never throws.
 */
export async function serveAppAsset(
  request: { url: string; method: string },
  rendererDirectory: string,
): Promise<Response> {
  const asset = resolveAppAsset(request.url, request.method, rendererDirectory);
  if (!asset.ok)
    return new Response(`${asset.status}: ${asset.reason}`, {
      status: asset.status,
      headers: headers('text/plain; charset=utf-8'),
    });
  let body: Buffer;
  try {
    body = await readFile(asset.file);
  } catch {
    return new Response('404: no such file', { status: 404, headers: headers('text/plain; charset=utf-8') });
  }
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
    status: 200,
    headers: headers(asset.contentType),
  });
}
