import { describe, expect, it, vi } from 'vitest';
import { BrowserWindow, control, ipcMain, recorded } from './stand-in-main-electron.js';

/** main/app/main.ts when another studio already runs: it quits at once, and starts nothing (stand-in electron). */
vi.mock('electron', () => import('./stand-in-main-electron.js'));

describe('a second launch of main/app/main.ts', () => {
  it('quits without serving, registering a handler or opening a window', async () => {
    control.singleInstance = false;
    await import('../../../main/app/main.js');
    control.becomeReady();
    expect(recorded.quits).toBe(1);
    expect(recorded.handlers.size).toBe(0);
    expect(ipcMain.channels).toEqual([]);
    expect(BrowserWindow.opened).toEqual([]);
  });
});
