import { contractMethodNames } from '../../common/contract.js';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../common/content-security-policy.js';
import { StudioHarness, repositoryRoot } from './bridge.js';

const ownVersion = (JSON.parse(await readFile(`${repositoryRoot}/package.json`, 'utf8')) as { version: string })
  .version;
const wasmoonVersion = (
  JSON.parse(await readFile(`${repositoryRoot}/node_modules/wasmoon/package.json`, 'utf8')) as { version: string }
).version;

describe('studio skeleton through the test bridge', () => {
  // A fixed path, so the committed screenshot only changes when the UI does.
  const studio = new StudioHarness({ userDataDirectory: path.join(os.tmpdir(), 'promptforge-e2e', 'user-data') });

  beforeAll(async () => {
    await studio.open();
  });
  afterAll(async () => {
    await studio.close();
  });

  it('serves the built renderer with the shipped CSP in both the header and the meta tag', async () => {
    const response = await fetch(studio.url);
    expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy);
    const meta = await studio.page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(meta).toBe(contentSecurityPolicy);
    expect(contentSecurityPolicy).not.toContain('unsafe-eval');
  });

  it('starts dark, with an empty state that says how to begin', async () => {
    expect(await studio.page.locator('html').getAttribute('data-theme')).toBe('dark');
    await expect
      .poll(() => studio.page.getByRole('heading', { name: 'Open a workspace to start' }).isVisible())
      .toBe(true);
    expect(await studio.page.getByRole('navigation', { name: 'Workspace explorer' }).isVisible()).toBe(true);
  });

  it('exposes exactly the contract methods and on(), and no Node or Electron globals', async () => {
    const globals = await studio.page.evaluate(() => {
      const page = globalThis as unknown as Record<string, unknown>;
      return {
        api: Object.keys(page['promptforge'] as object).sort(),
        require: typeof page['require'],
        process: typeof page['process'],
        ipcRenderer: typeof page['ipcRenderer'],
      };
    });
    expect(globals).toEqual({
      api: [...contractMethodNames, 'on'].sort(),
      require: 'undefined',
      process: 'undefined',
      ipcRenderer: 'undefined',
    });
  });

  it('About calls app:info and shows the versions and data folders', async () => {
    await studio.openAbout();
    const details = await studio.waitForAboutDetails();
    expect(details).toEqual({
      Version: ownVersion,
      Platform: `${process.platform}-${process.arch}`,
      Electron: 'not running in Electron',
      Chromium: 'not running in Electron',
      'Node.js': process.versions.node,
      V8: process.versions.v8,
      'Lua VM': `wasmoon ${wasmoonVersion}`,
      'User data': studio.userDataDirectory,
      Workspace: 'No workspace open',
    });
    // On start the page asks once for the open workspace (none here) and the recent ones, in
    // whatever order their effects run; About adds one app:info.
    expect(
      studio.calls
        .slice(0, 2)
        .map((call) => call.method)
        .sort(),
    ).toEqual(['workspace:recent', 'workspace:state']);
    expect(studio.calls.slice(2)).toEqual([{ method: 'app:info', ok: true }]);
    expect(studio.calls.every((call) => call.ok)).toBe(true);
    await studio.screenshot('about');
  });

  it('refuses a bad payload from the page with an error naming the field', async () => {
    const result = await studio.page.evaluate(() =>
      (globalThis as unknown as { promptforge: { 'app:info': (request: unknown) => Promise<unknown> } }).promptforge[
        'app:info'
      ]({ workspace: 42 }),
    );
    expect(result).toEqual({
      ok: false,
      error: { code: 'invalid-payload', message: 'app:info: field "workspace": unknown field' },
    });
    expect(studio.log.at(-1)).toMatchObject({ level: 'warn', message: 'refused IPC call: invalid payload' });
  });

  it('delivers pushed events to on() listeners until they unsubscribe', async () => {
    await studio.page.evaluate(() => {
      const page = globalThis as unknown as {
        promptforge: { on: (event: string, listener: (payload: unknown) => void) => () => void };
        received: unknown[];
        stop: () => void;
      };
      page.received = [];
      page.stop = page.promptforge.on('run-event', (payload) => page.received.push(payload));
    });
    await studio.pushEvent('run-event', {
      runId: 'run-1',
      seq: 1,
      t: '2026-12-02T10:00:00.000Z',
      type: 'log',
      text: 'hello',
    });
    await studio.page.evaluate(() => (globalThis as unknown as { stop: () => void }).stop());
    await studio.pushEvent('run-event', {
      runId: 'run-1',
      seq: 2,
      t: '2026-12-02T10:00:01.000Z',
      type: 'log',
      text: 'after unsubscribe',
    });
    const received = await studio.page.evaluate(() => (globalThis as unknown as { received: unknown[] }).received);
    expect(received).toEqual([{ runId: 'run-1', seq: 1, t: '2026-12-02T10:00:00.000Z', type: 'log', text: 'hello' }]);
  });

  it('switches to the light theme from the header', async () => {
    await studio.page.getByRole('button', { name: 'Switch to light theme' }).click();
    expect(await studio.page.locator('html').getAttribute('data-theme')).toBe('light');
    await studio.page.getByRole('button', { name: 'Switch to dark theme' }).click();
    expect(await studio.page.locator('html').getAttribute('data-theme')).toBe('dark');
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
