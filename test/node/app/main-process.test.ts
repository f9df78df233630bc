import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contractMethodNames } from '../../../common/contract.js';
import { APP_INDEX_URL, APP_SCHEME_PRIVILEGES } from '../../../main/core/studio/app-protocol.js';
import { StandInWebFrameMain } from './electron-stand-ins.js';
import { standInBrowser } from '../../fixtures/stand-in-browser.js';
import { startOAuthFixture } from '../mcp/fixtures/oauth-fixture.js';
import { answers, app, BrowserWindow, control, ipcMain, recorded } from './stand-in-main-electron.js';

/**
 * main/app/main.ts, the app's start, run in plain Node on a STAND-IN `electron` module
 * (stand-in-main-electron.ts): what it registers before and after the app is ready, the window it
 * opens, and the decisions it takes through main's own dialogs. (The real Electron start is the
 * smoke test, test/e2e/electron-smoke.test.ts, which needs the binary.)
 */
vi.mock('electron', () => import('./stand-in-main-electron.js'));

/** The scheme's handler calls, to see which folder main serves from. */
const served = vi.hoisted(() => [] as Array<{ url: string; folder: string }>);
vi.mock(import('../../../main/core/studio/app-protocol.js'), async (importOriginal) => {
  const real = await importOriginal();
  return {
    ...real,
    serveAppAsset: (request: { url: string; method: string }, folder: string) => {
      served.push({ url: request.url, folder });
      return real.serveAppAsset(request, folder);
    },
  };
});

/**
 * The OS keychain, a STAND-IN held in a map (this test is about main's own dialogs; the real keychain
 * is tested in test/node/credentials): main.ts gets it where it makes its KeyringSecretStore.
 */
const keychain = vi.hoisted(() => new Map<string, string>());
vi.mock(import('../../../main/core/credentials/keyring-secret-store.js'), async (importOriginal) => ({
  ...(await importOriginal()),
  KeyringSecretStore: class {
    get = async (name: string) => keychain.get(name);
    set = async (name: string, value: string) => void keychain.set(name, value);
    delete = async (name: string) => keychain.delete(name);
    has = async (name: string) => keychain.has(name);
  } as never,
}));

/** Where main's module lives is where its out/ folder is: out/main/index.js -> out/. */
const outDirectory = path.resolve(import.meta.dirname, '..', '..', '..', 'main');

describe('main/app/main.ts on a stand-in electron', () => {
  let window: BrowserWindow;
  const invoke = (method: string, request: unknown, frameUrl = APP_INDEX_URL) =>
    ipcMain.invoke(window.webContents.invokeEvent(new StandInWebFrameMain(frameUrl)), method, request) as Promise<{
      ok: boolean;
      value?: unknown;
      error?: { code: string; message: string };
    }>;

  /** The person presses a button in the studio window (Electron's input-event). */
  const press = () => window.webContents.emit('input-event', {}, { type: 'mouseDown' });

  beforeAll(async () => {
    await import('../../../main/app/main.js');
  });
  afterAll(() => {
    // Main closes the studio (its workers, its servers) when the app quits.
    app.emit('before-quit');
  });

  it('registers the studio scheme as privileged before the app is ready, and nothing else yet', () => {
    expect(recorded.privileged).toEqual([
      { schemes: [{ scheme: 'promptforge', privileges: APP_SCHEME_PRIVILEGES }], whenReady: false },
    ]);
    expect(app.getName()).toBe('PromptForge Studio');
    expect(ipcMain.channels).toEqual([]);
    expect(BrowserWindow.opened).toEqual([]);
  });

  it('once ready: serves the scheme from out/renderer, handles every contract method, opens the studio document', async () => {
    control.becomeReady();
    window = await control.window;
    expect(window.loaded).toEqual([APP_INDEX_URL]);
    expect((window.options['webPreferences'] as Record<string, unknown>)['preload']).toBe(
      path.join(outDirectory, 'preload', 'index.cjs'),
    );
    expect([...ipcMain.channels].sort()).toEqual([...contractMethodNames].sort());
    const handler = recorded.handlers.get('promptforge');
    expect(handler).toBeDefined();
    const response = await handler!(new Request(`${APP_INDEX_URL}?theme=dark`));
    expect(served).toEqual([{ url: `${APP_INDEX_URL}?theme=dark`, folder: path.join(outDirectory, 'renderer') }]);
    // From the source tree there is no renderer next to main/: nothing is served from elsewhere.
    expect(response.status).toBe(404);
  });

  it('serves approval:decide only after a click or key press reached the studio window', async () => {
    const decision = { runId: 'run-none', callId: 'call-none', decision: { kind: 'approve' } };
    expect((await invoke('approval:decide', decision)).error?.code).toBe('no-person-input');
    // A pointer moving over the window is no decision.
    window.webContents.emit('input-event', {}, { type: 'mouseMove' });
    expect((await invoke('approval:decide', decision)).error?.code).toBe('no-person-input');
    window.webContents.emit('input-event', {}, { type: 'mouseDown' });
    const served = await invoke('approval:decide', decision);
    // Past the gate: the dispatcher answers (there is no such call waiting).
    expect(served.error?.code).not.toBe('no-person-input');
    expect(served.ok).toBe(false);
  });

  it('refuses a call from a frame that does not show the studio document', async () => {
    expect((await invoke('keys:status', {}, 'file:///home/person/page.html')).error?.code).toBe('forbidden-sender');
  });

  it('asks the person in a native message box before storing a key; Cancel is the default and stores nothing', async () => {
    expect((await invoke('keys:set', { provider: 'openai', key: 'sk-no-press-0000000000000' })).error?.code).toBe(
      'no-person-input',
    );
    answers.messageBox.push(0);
    press();
    const stored = await invoke('keys:set', { provider: 'openai', key: 'sk-stand-in-000000000000abcd' });
    expect(stored.error?.code).toBe('cancelled');
    expect(recorded.messageBoxes.at(-1)).toMatchObject({
      type: 'warning',
      title: 'Store your OpenAI key?',
      buttons: ['Cancel', 'Store the key'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    });
    expect(recorded.messageBoxes.at(-1)?.message).toContain('ending in "abcd"');
    expect(keychain.has('openai')).toBe(false);
    // The person's yes (the second button) stores exactly the key that was pasted, and nothing else.
    answers.messageBox.push(1);
    press();
    expect(await invoke('keys:set', { provider: 'openai', key: 'sk-stand-in-000000000000wxyz' })).toEqual({
      ok: true,
      value: { replaced: false },
    });
    expect([...keychain]).toEqual([['openai', 'sk-stand-in-000000000000wxyz']]);
    // Deleting it asks again; without a press nothing is asked and the key stays.
    const boxes = recorded.messageBoxes.length;
    expect((await invoke('keys:delete', { provider: 'openai' })).error?.code).toBe('no-person-input');
    expect(recorded.messageBoxes).toHaveLength(boxes);
    expect(keychain.get('openai')).toBe('sk-stand-in-000000000000wxyz');
  });

  it('opens a workspace only at the folder the native folder dialog answered', async () => {
    const chosen = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'promptforge-main-chosen-')));
    const other = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'promptforge-main-other-')));
    expect((await invoke('workspace:open', { path: other })).error?.code).toBe('not-chosen');
    answers.folders.push(chosen);
    press();
    expect(await invoke('workspace:choose', {})).toEqual({ ok: true, value: { path: chosen } });
    expect(recorded.openDialogs.at(-1)).toMatchObject({ properties: ['openDirectory', 'createDirectory'] });
    expect(await invoke('workspace:open', { path: chosen })).toMatchObject({ ok: true, value: { root: chosen } });
    expect((await invoke('workspace:open', { path: other })).error?.code).toBe('not-chosen');
  });

  it('opens the system browser through shell.openExternal only for a sign-in the person pressed for', async () => {
    const oauth = await startOAuthFixture();
    try {
      const folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'promptforge-main-signin-')));
      writeFileSync(path.join(folder, 'tools.yaml'), `web:\n  kind: mcp\n  url: ${oauth.mcpUrl}\n`);
      answers.folders.push(folder);
      press();
      await invoke('workspace:choose', {});
      expect(await invoke('workspace:open', { path: folder })).toMatchObject({ ok: true });
      const status = (await invoke('trust:status', {})).value as { digest: string };
      answers.messageBox.push(1);
      press();
      expect(await invoke('trust:grant', { digest: status.digest })).toMatchObject({ value: { granted: true } });
      // Without a press main opens nothing.
      expect((await invoke('mcp:login', { server: 'web' })).error?.code).toBe('no-person-input');
      expect(recorded.opened).toEqual([]);
      // The stand-in browser consents and comes back to the studio's loopback listener.
      control.browser = async (url) => void (await standInBrowser(url));
      press();
      expect(await invoke('mcp:login', { server: 'web' })).toMatchObject({
        ok: true,
        value: { server: 'web', state: 'signed-in' },
      });
      expect(recorded.opened).toHaveLength(1);
      expect(new URL(recorded.opened[0]!).origin).toBe(oauth.asUrl);
      // Signing out asks in main's own message box first.
      answers.messageBox.push(1);
      press();
      expect(await invoke('mcp:logout', { server: 'web' })).toMatchObject({ ok: true, value: { signedOut: true } });
      expect(recorded.messageBoxes.at(-1)).toMatchObject({ title: 'Sign out of MCP server "web"?' });
    } finally {
      control.browser = async () => undefined;
      await oauth.close();
    }
  });
});
