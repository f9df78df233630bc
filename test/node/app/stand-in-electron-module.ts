/**
 * What `vi.mock('electron', () => import('./stand-in-electron-module.js'))` gives preload/index.ts
 * in a Node test: the stand-in `contextBridge` and `ipcRenderer` of {@link createStandInElectron}
 * (there is no Electron here). The preload exposes its API into {@link pageWorld}, a stand-in for
 * the page's global object, and invokes over the wire {@link connectMain} sets.
 */
import { createStandInElectron, type StandInWire } from './electron-stand-ins.js';

/** The stand-in page global the preload exposes `promptforge` into. */
export const pageWorld: Record<string, unknown> = {};

let wire: StandInWire['invoke'] | undefined;
const standIn = createStandInElectron(pageWorld, {
  invoke: (channel, args) =>
    wire === undefined
      ? Promise.reject(new Error('stand-in electron: nothing answers ipcRenderer.invoke: call connectMain() first'))
      : wire(channel, args),
});

export const { contextBridge, ipcRenderer } = standIn.electron;

/** Delivers a message main sent (webContents.send) to the preload's listeners. */
export const deliverToPage = standIn.deliver;

/** Connects ipcRenderer.invoke to a main side (usually a StandInIpcMain). */
export function connectMain(invoke: StandInWire['invoke']): void {
  wire = invoke;
}
