import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../../common/content-security-policy.js';
import { APP_INDEX_URL, resolveAppAsset, serveAppAsset } from '../../../main/core/studio/app-protocol.js';

/** The studio's own scheme: what `promptforge://studio/…` serves, and everything it refuses. */

let renderer = '';
beforeAll(() => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'promptforge-app-protocol-'));
  renderer = path.join(parent, 'renderer');
  mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>studio</title>');
  writeFileSync(path.join(renderer, 'assets', 'index-abc.js'), 'export {};');
  writeFileSync(path.join(renderer, 'assets', 'index-abc.js.map'), '{}');
  writeFileSync(path.join(renderer, 'notes.txt'), 'not part of the app');
  // Next to the renderer folder, as out/main and out/preload are in the app.
  mkdirSync(path.join(parent, 'main'));
  writeFileSync(path.join(parent, 'main', 'index.js'), '// main process');
});
afterAll(() => rmSync(path.dirname(renderer), { recursive: true, force: true }));

describe('resolveAppAsset', () => {
  it.each([
    ['promptforge://studio/', 'index.html', 'text/html; charset=utf-8'],
    ['promptforge://studio/index.html', 'index.html', 'text/html; charset=utf-8'],
    ['promptforge://studio/index.html?theme=dark#approvals', 'index.html', 'text/html; charset=utf-8'],
    ['promptforge://studio/assets/index-abc.js', 'assets/index-abc.js', 'text/javascript; charset=utf-8'],
    // The URL parser resolves dot segments before anything is decoded: this stays inside.
    ['promptforge://studio/assets/../index.html', 'index.html', 'text/html; charset=utf-8'],
  ])('serves %s from the renderer folder', (url, file, contentType) => {
    expect(resolveAppAsset(url, 'GET', renderer)).toEqual({ ok: true, file: path.join(renderer, file), contentType });
  });

  it.each([
    ['promptforge://studio/assets%2f..%2f..%2fmain%2findex.js', 404],
    ['promptforge://studio/..%5c..%5cmain%5cindex.js', 404],
    ['promptforge://studio/index.html%00.js', 404],
    ['promptforge://studio/C:%5cWindows%5cwin.ini', 404],
    ['promptforge://studio//etc/passwd.js', 404],
    ['promptforge://studio/assets//index-abc.js', 404],
    ['promptforge://studio/%ZZ.js', 400],
    ['promptforge://studio/notes.txt', 404],
    ['promptforge://studio/assets/index-abc.js.map', 404],
    ['promptforge://studio/assets', 404],
    ['promptforge://other/index.html', 404],
    ['promptforge://studio:8080/index.html', 404],
    ['promptforge://user:pass@studio/index.html', 400],
    ['file:///etc/passwd', 404],
    ['https://studio/index.html', 404],
    ['not a url', 400],
  ])('refuses %s (%i)', (url, status) => {
    const asset = resolveAppAsset(url, 'GET', renderer);
    expect(asset).toMatchObject({ ok: false, status });
  });

  it('an encoded `..` is a dot segment the URL parser resolves first: the path stays inside the folder', () => {
    for (const url of ['promptforge://studio/%2e%2e/main/index.js', 'promptforge://studio/%2E%2E/%2E%2E/main/index.js'])
      expect(resolveAppAsset(url, 'GET', renderer)).toMatchObject({
        ok: true,
        file: path.join(renderer, 'main', 'index.js'),
      });
  });

  it('serves only GET and HEAD', () => {
    expect(resolveAppAsset(APP_INDEX_URL, 'HEAD', renderer).ok).toBe(true);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS'])
      expect(resolveAppAsset(APP_INDEX_URL, method, renderer)).toMatchObject({ ok: false, status: 405 });
  });
});

describe('serveAppAsset', () => {
  it('answers with the bytes, the content type, the studio’s CSP and no sniffing', async () => {
    const response = await serveAppAsset({ url: APP_INDEX_URL, method: 'GET' }, renderer);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('<!doctype html><title>studio</title>');
    expect(Object.fromEntries(response.headers)).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
    });
    const head = await serveAppAsset({ url: APP_INDEX_URL, method: 'HEAD' }, renderer);
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('refuses in plain text, under the same CSP, and never throws (missing file, a folder, a traversal)', async () => {
    for (const url of [
      'promptforge://studio/missing.js',
      'promptforge://studio/assets.js',
      'promptforge://studio/%2e%2e/main/index.js',
    ]) {
      const response = await serveAppAsset({ url, method: 'GET' }, renderer);
      expect(response.status, url).toBe(404);
      expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy);
      expect(await response.text()).not.toContain('main process');
    }
  });

  it('serves every file the built index.html loads (out/renderer, built by npm test)', async () => {
    const built = path.resolve(import.meta.dirname, '..', '..', '..', 'out', 'renderer');
    const html = readFileSync(path.join(built, 'index.html'), 'utf8');
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(references.length).toBeGreaterThanOrEqual(3);
    for (const reference of references) {
      const response = await serveAppAsset({ url: new URL(reference, APP_INDEX_URL).href, method: 'GET' }, built);
      expect(response.status, reference).toBe(200);
    }
  });
});
