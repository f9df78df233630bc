import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _electron } from 'playwright';
import { describe, expect, it } from 'vitest';
import { contractEventNames, contractMethodNames } from '../../common/contract.js';
import { APP_INDEX_URL } from '../../main/core/studio/app-protocol.js';
import { repositoryRoot } from './bridge.js';

/**
 * Where the Electron binary would be, or why it cannot run. Does not `require('electron')`:
 * that module downloads the binary when it is missing, which must never happen in a test.
 */
function findElectron(): { executablePath: string } | { skipReason: string } {
  const packageDirectory = path.join(repositoryRoot, 'node_modules', 'electron');
  const pathFile = path.join(packageDirectory, 'path.txt');
  if (!existsSync(pathFile)) {
    return {
      skipReason: `Electron binary not downloaded on this machine: ${pathFile} is missing (\`npm start\` downloads it on first use; offline, see docs/architecture.md "Developing without the Electron binary")`,
    };
  }
  const executablePath = path.join(packageDirectory, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(executablePath)) {
    return { skipReason: `Electron binary not downloaded on this machine: ${executablePath} does not exist` };
  }
  if (process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY']) {
    return { skipReason: 'Electron needs a display: DISPLAY and WAYLAND_DISPLAY are unset (run under xvfb-run)' };
  }
  if (!existsSync(path.join(repositoryRoot, 'out', 'main', 'index.js'))) {
    return { skipReason: 'out/main/index.js is missing: run `npm run build` first' };
  }
  return { executablePath };
}

const electron = findElectron();
const skipReason = 'skipReason' in electron ? electron.skipReason : null;
if (skipReason !== null) console.warn(`electron-smoke skipped: ${skipReason}`);

describe('Electron smoke test', () => {
  it.skipIf(skipReason !== null)(
    'launches the built app with the security baseline: the whole contract (every method, on, every event) and no Node in the page',
    async () => {
      if (!('executablePath' in electron)) throw new Error('unreachable: the test is skipped without a binary');
      const userData = mkdtempSync(path.join(os.tmpdir(), 'promptforge-electron-'));
      const app = await _electron.launch({
        executablePath: electron.executablePath,
        args: [repositoryRoot, `--user-data-dir=${userData}`, ...(process.env['CI'] ? ['--no-sandbox'] : [])],
        cwd: repositoryRoot,
      });
      try {
        const window = await app.firstWindow();
        await window.getByRole('heading', { level: 1, name: 'PromptForge Studio' }).waitFor();
        const loadedUrl = await app.evaluate(({ BrowserWindow }) =>
          BrowserWindow.getAllWindows()[0]?.webContents.getURL(),
        );
        expect(loadedUrl).toBe(APP_INDEX_URL);
        const page = await window.evaluate(async (events) => {
          const global = globalThis as unknown as Record<string, unknown> & {
            promptforge: Record<string, unknown> & {
              'app:info': (
                request: unknown,
              ) => Promise<{ ok: boolean; value?: { versions: { electron: string | null } } }>;
              on: (event: string, listener: (payload: unknown) => void) => () => void;
            };
          };
          const info = await global.promptforge['app:info']({});
          // Each contract event can be subscribed to, and unsubscribed; any other name is refused.
          const subscribed = events.map((event) => {
            const off = global.promptforge.on(event, () => undefined);
            off();
            return typeof off;
          });
          let unknownEvent = '';
          try {
            global.promptforge.on('shell-exec', () => undefined);
          } catch (error) {
            unknownEvent = String(error);
          }
          return {
            api: Object.keys(global.promptforge).sort(),
            kinds: [...new Set(Object.values(global.promptforge).map((value) => typeof value))],
            subscribed,
            unknownEvent,
            require: typeof global['require'],
            process: typeof global['process'],
            ok: info.ok,
            electron: info.value?.versions.electron ?? null,
          };
        }, contractEventNames);
        // The whole contract, built by the preload from common/contract.ts, and no Node in the page.
        expect(page).toMatchObject({
          api: [...contractMethodNames, 'on'].sort(),
          kinds: ['function'],
          subscribed: contractEventNames.map(() => 'function'),
          unknownEvent: expect.stringContaining('promptforge.on: unknown event "shell-exec"'),
          require: 'undefined',
          process: 'undefined',
          ok: true,
        });
        expect(page.electron).toMatch(/^\d+\.\d+\.\d+/);
        // No input event reached the window (evaluate is not one): a decision from page script is refused.
        const decided = await window.evaluate(() =>
          (globalThis as unknown as { promptforge: Record<string, (request: unknown) => Promise<unknown>> })
            .promptforge['approval:decide']!({ runId: 'run-1', callId: 'call-1', decision: { kind: 'approve' } }),
        );
        expect(decided).toMatchObject({ ok: false, error: { code: 'no-person-input' } });
        // The page's origin is the built renderer: nothing else of the app, and no file: URL, can be fetched.
        const escapes = await window.evaluate(async () => {
          const statusOf = async (url: string) => {
            try {
              return (await fetch(url)).status;
            } catch {
              return 'refused';
            }
          };
          return [await statusOf('promptforge://studio/%2e%2e/main/index.js'), await statusOf('file:///etc/passwd')];
        });
        expect(escapes).toEqual([404, 'refused']);
        const opened = await window.evaluate(() =>
          (globalThis as unknown as { open: (url: string) => unknown }).open('https://example.com/'),
        );
        expect(opened).toBeNull();
        expect(app.windows()).toHaveLength(1);
      } finally {
        await app.close();
        rmSync(userData, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
