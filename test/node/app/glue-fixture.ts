/**
 * The studio's Electron glue (main/app/ipc-registration.ts) on the stand-ins of
 * ./electron-stand-ins.ts, for Node tests: one studio window whose main frame shows the app's
 * own document, the app's registration on a stand-in ipcMain, main's event sender, and the
 * person-input log fed by the window's stand-in input events on a clock the test moves.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { PromptForgeApi } from '../../../common/contract-ipc.js';
import type { AppLocation } from '../../../main/core/studio/app-location.js';
import { PersonInputLog } from '../../../main/core/studio/person-input.js';
import { createStudioHandlers, type StudioHandlers } from '../../../main/core/studio/studio-handlers.js';
import type { StudioLogFields, StudioLogger } from '../../../main/core/studio/studio-logger.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import type { PersonQuestion } from '../../../main/core/studio/studio-trust.js';
import {
  createEventSender,
  registerContractHandlers,
  watchPersonInput,
  type SendEvent,
} from '../../../main/app/ipc-registration.js';
import { APP_INDEX_URL } from '../../../main/core/studio/app-protocol.js';
import { testPool } from '../run/run-harness.js';
import { StandInBrowserWindow, StandInIpcMain, StandInWebContents, StandInWebFrameMain } from './electron-stand-ins.js';
import { connectMain, deliverToPage, pageWorld } from './stand-in-electron-module.js';
import { mapSecretStore } from '../../fixtures/stubs.js';

/** The studio's document in a build (its own scheme, main/core/studio/app-protocol.ts). */
export const STUDIO_INDEX_URL = APP_INDEX_URL;
const studioLocation: AppLocation = { kind: 'app', indexUrl: STUDIO_INDEX_URL };
const examplesDirectory = path.resolve(import.meta.dirname, '..', '..', '..', 'examples');

interface LoggedLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: StudioLogFields | undefined;
}

export interface Glue {
  ipcMain: StandInIpcMain;
  /** The studio window's webContents and the window. */
  webContents: StandInWebContents;
  window: StandInBrowserWindow;
  /** What the registration's getWindow answers; a test sets it to null for a window being torn down. */
  current: { window: StandInBrowserWindow | null };
  log: LoggedLine[];
  logger: StudioLogger;
  personInput: PersonInputLog;
  /** The clock input is recorded and judged with, in ms; only the test moves it. */
  clock: { now: number };
  sendEvent: SendEvent;
  /** Every handler reply and every pushed message as main produced it, before IPC's clone. */
  replies: Array<{ channel: string; reply: unknown }>;
  sent: Array<{ channel: string; payload: unknown }>;
  /** Invokes `channel` as the studio window's main frame sends it, or as `frame` of `contents`. */
  invoke(
    channel: string,
    payload: unknown,
    from?: { frame?: StandInWebFrameMain | null; contents?: StandInWebContents },
  ): Promise<unknown>;
  /** The person clicks in the studio window (Electron's input-event, mouseDown then mouseUp). */
  click(): void;
  unregister(): void;
}

/** The glue around `handlers`; main's messages go to `deliver` (the preload's side) after IPC's clone. */
export function createGlue(
  handlers: StudioHandlers | ((sendEvent: SendEvent) => StudioHandlers),
  deliver: (channel: string, payload: unknown) => void = () => {},
): Glue {
  const log: LoggedLine[] = [];
  const logger: StudioLogger = {
    info: (message, fields) => log.push({ level: 'info', message, fields }),
    warn: (message, fields) => log.push({ level: 'warn', message, fields }),
    error: (message, fields) => log.push({ level: 'error', message, fields }),
  };
  const replies: Glue['replies'] = [];
  const sent: Glue['sent'] = [];
  const ipcMain = new StandInIpcMain((channel, reply) => replies.push({ channel, reply }));
  const webContents = new StandInWebContents(deliver, (channel, payload) => sent.push({ channel, payload }));
  const window = new StandInBrowserWindow(webContents);
  const current: Glue['current'] = { window };
  const clock = { now: 1_000_000 };
  const personInput = new PersonInputLog();
  watchPersonInput(webContents, personInput, () => clock.now);
  const sendEvent = createEventSender(() => current.window, logger);
  const unregister = registerContractHandlers({
    ipcMain,
    getWindow: () => current.window,
    handlers: typeof handlers === 'function' ? handlers(sendEvent) : handlers,
    location: studioLocation,
    logger,
    personInput,
    now: () => clock.now,
  });
  return {
    ipcMain,
    webContents,
    window,
    current,
    log,
    logger,
    personInput,
    clock,
    sendEvent,
    replies,
    sent,
    invoke: (channel, payload, from = {}) => {
      const contents = from.contents ?? webContents;
      const frame = from.frame === undefined ? new StandInWebFrameMain(STUDIO_INDEX_URL) : from.frame;
      return ipcMain.invoke(contents.invokeEvent(frame), channel, payload);
    },
    click: () => {
      webContents.emit('input-event', {}, { type: 'mouseDown' });
      webContents.emit('input-event', {}, { type: 'mouseUp' }); // the release is the same act: it does not count again
    },
    unregister,
  };
}

/**
 * A real StudioService (in-memory keychain, the tests' worker pool, a person who says yes) whose
 * events go through `sendEvent`, and its contract handlers. Close the service after the test.
 */
export function studioHandlers(
  sendEvent: SendEvent,
  dialogs: StudioDialogStandIns = {},
): { service: StudioService; handlers: StudioHandlers } {
  const userDataDirectory = mkdtempSync(path.join(tmpdir(), 'pf-glue-'));
  const service = new StudioService({
    userDataDirectory,
    examplesDirectory,
    configDirectory: path.join(userDataDirectory, 'config'),
    secrets: mapSecretStore(),
    pool: testPool(),
    confirmPerson: async () => true,
    // Main's folder and save dialogs, stand-ins: the person cancels, unless the test answers.
    chooseFolder: async () => null,
    chooseSaveFile: async () => null,
    ...dialogs,
    emit: (name, payload) => void sendEvent(name, payload),
  });
  const handlers = createStudioHandlers({
    appName: 'PromptForge Studio',
    appVersion: '0.0.0-test',
    userDataDirectory,
    service,
  });
  return { service, handlers };
}

/** Stand-ins for main's own dialogs, named as such: what the person answers in each. */
export interface StudioDialogStandIns {
  confirmPerson?: (question: PersonQuestion) => Promise<boolean>;
  chooseFolder?: () => Promise<string | null>;
  chooseSaveFile?: (suggestedName: string) => Promise<string | null>;
  /** The person's system browser (shell.openExternal, behind main's check of the URL). Default: none. */
  openExternal?: (url: string) => Promise<void>;
}

/** preload/index.ts in front of the glue and a real studio, for one test file ({@link usePreloadOnGlue}). */
export interface PreloadOnGlue {
  glue: Glue;
  service: StudioService;
  /** The page's `window.promptforge`, as the preload exposed it into the stand-in page world. */
  api: PromptForgeApi;
}

/**
 * preload/index.ts in front of the glue and a real studio ({@link studioHandlers}), set up before
 * the file's tests and closed after them. The calling test file must mock electron first:
 * `vi.mock('electron', () => import('./stand-in-electron-module.js'))`.
 */
export function usePreloadOnGlue(dialogs: StudioDialogStandIns = {}): PreloadOnGlue {
  const session = {} as PreloadOnGlue;
  beforeAll(async () => {
    session.glue = createGlue((sendEvent) => {
      const studio = studioHandlers(sendEvent, dialogs);
      session.service = studio.service;
      return studio.handlers;
    }, deliverToPage);
    connectMain((channel, args) => session.glue.invoke(channel, args[0]));
    await import('../../../preload/index.js');
    session.api = pageWorld['promptforge'] as PromptForgeApi;
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- undefined when beforeAll failed
    await session.service?.close();
  });
  return session;
}
