/**
 * The end-to-end test bridge: the built renderer in Debian's Chromium, with `window.promptforge`
 * built by the app's own preload (the built `out/preload/index.cjs`, run in the page with a
 * stand-in `electron` module), answered by the app's own IPC registration
 * (main/app/ipc-registration.ts, on a stand-in `ipcMain` and window) and the real core, in the
 * test process. Nothing here needs the Electron binary. The stand-ins are in
 * test/node/app/electron-stand-ins.ts; where the harness stands in for Electron or for the person,
 * it says so below.
 *
 * ```ts
 * const studio = new StudioHarness();
 * await studio.open();
 * await studio.openAbout();
 * await studio.screenshot('about');
 * await studio.close();
 * ```
 */
import type { ConfirmWithPerson } from '../../main/core/studio/studio-trust.js';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Frame, type Locator, type Page } from 'playwright';
import {
  type ContractEventName,
  type ContractEventPayload,
  type ContractMethodName,
  type ContractRequest,
  type ContractResponse,
} from '../../common/contract.js';
import { type IpcResult } from '../../common/contract-ipc.js';
import type { WorkspaceTrustInfo } from '../../common/trust-schemas.js';
import { loadWorkspace } from '../../main/core/catalog/workspace.js';
import { manifestDigest, workspaceManifest } from '../../main/core/trust/workspace-manifest.js';
import { createStudioHandlers, type StudioHandlers } from '../../main/core/studio/studio-handlers.js';
import { createEventSender, registerContractHandlers, type SendEvent } from '../../main/app/ipc-registration.js';
import { pressPaysFor } from '../../main/core/studio/person-input.js';
import type { StudioLogFields, StudioLogger } from '../../main/core/studio/studio-logger.js';
import { KeyringSecretStore } from '../../main/core/credentials/keyring-secret-store.js';
import type { SecretStore } from '../../main/core/credentials/secret-store.js';
import { StudioService } from '../../main/core/studio/studio-service.js';
import {
  StandInBrowserWindow,
  StandInIpcMain,
  StandInWebContents,
  StandInWebFrameMain,
} from '../node/app/electron-stand-ins.js';
import { preloadInitScript, readPreloadBundle } from '../node/app/preload-bundle.js';
import { chromiumLaunchOptions, SHARED_BROWSER_ENV } from './chromium.js';
import {
  focusChanges,
  focusedElement,
  recordFocusChanges,
  replaceEditorText,
  waitForAboutDetails,
  waitForTranscriptEvent,
} from './page-helpers.js';
import { PersonStandIn, watchTrustedPresses } from './person-stand-in.js';
import { startRendererServer, type RendererServer } from './renderer-server.js';

/** The repository root (this file is test/e2e/bridge.ts). */
export const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');
/** Where `electron-vite build` puts the renderer. */
export const builtRendererDirectory = path.join(repositoryRoot, 'out', 'renderer');
/** Where `screenshot(name)` writes: test-results/screenshots (ignored by git). */
export const screenshotDirectory = path.join(repositoryRoot, 'test-results', 'screenshots');
/**
 * `npm run screenshots` (scripts/screenshots.ts) sets PROMPTFORGE_SCREENSHOT_DIR to docs/screenshots
 * and PROMPTFORGE_SCREENSHOT_NAMES to the names of the pictures README.md shows (comma-separated):
 * `screenshot(name)` writes those also to that folder, and no others.
 */
const readmeScreenshotDirectory = process.env['PROMPTFORGE_SCREENSHOT_DIR']
  ? path.resolve(repositoryRoot, process.env['PROMPTFORGE_SCREENSHOT_DIR'])
  : undefined;
const readmeScreenshotNames = new Set((process.env['PROMPTFORGE_SCREENSHOT_NAMES'] ?? '').split(',').filter(Boolean));

/** The page's ends of the stand-in IPC: the binding `ipcRenderer.invoke` calls, and the function the harness delivers events with. */
const pageWire = { invokeBinding: '__pfInvoke', deliverEvents: '__pfDeliverEvents' };

/** One line the core logged during the session. */
export interface LoggedLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: StudioLogFields | undefined;
}

/** What a harness may change; everything has a test-friendly default. */
export interface StudioHarnessOptions {
  /** Handlers answering `window.promptforge`; defaults to the real core's, on temp folders. */
  handlers?: StudioHandlers;
  /**
   * The folder standing in for Electron's userData. Defaults to a fresh temporary folder; pass a
   * fixed path when a screenshot shows it, so the committed PNG does not change on every run.
   */
  userDataDirectory?: string;
  /** Viewport in CSS pixels; default 1280x800. */
  viewport?: { width: number; height: number };
  /**
   * The keychain the studio uses. Default: the real OS keychain under a separate service name
   * (`PromptForge Studio (e2e)`), so tests never touch a person's own keys.
   */
  secrets?: SecretStore;
  /** What the folder picker answers (`workspace:choose`). Default: cancelled. */
  chooseFolder?: () => Promise<string | null>;
  /**
   * The stand-in for main's own confirmation dialog (Electron's message box, which Chromium alone
   * cannot show): default {@link StudioHarness.person}, which says yes unless a test queued a no.
   */
  confirmPerson?: ConfirmWithPerson;
  /** What the save dialog answers (`history:export`), given the suggested name. Default: cancelled. */
  chooseSaveFile?: (suggestedName: string) => Promise<string | null>;
  /**
   * The person's system browser, a stand-in (Electron's shell.openExternal, behind main's own
   * check of the URL): what it does with a URL main opened. Default: nothing. Every URL main
   * opened is in {@link StudioHarness.opened} either way.
   */
  openExternal?: (url: string) => Promise<void>;
  /**
   * Holds main's answer to a page's call of `method` until the promise returned settles (undefined:
   * answered at once). Main has done the work by then and pushed its events: this is the page
   * hearing back late, as on a busy machine.
   */
  holdReply?: (method: string) => Promise<void> | undefined;
}

/** What Playwright says when a page.evaluate races a navigation of the page. */
const NAVIGATION_RACE = /Execution context was destroyed|most likely because of a navigation/;

/**
 * Drives the built studio UI in Chromium through the real core. Open it, use the `waitForX()`
 * helpers (they wait on the page; no sleeps), close it.
 */
export class StudioHarness {
  /** Lines the core logged (refusals, failures). */
  readonly log: LoggedLine[] = [];
  /** Console errors, uncaught page errors and CSP violations seen in the page. */
  readonly pageErrors: string[] = [];
  /** Events main sent while the page was navigating (a reload), which no page could receive. */
  readonly droppedEvents: string[] = [];
  /** Every contract call the page made, in order. */
  readonly calls: Array<{ method: unknown; ok: boolean }> = [];
  /** Every contract result the page received, in order (to check what crossed the bridge). */
  readonly results: unknown[] = [];
  /** Every URL main handed the (stand-in) system browser, in order. */
  readonly opened: string[] = [];
  /** The person, a stand-in: their answers at main's own dialog, and their input (see {@link PersonStandIn}). */
  readonly person = new PersonStandIn(() =>
    this.window?.isDestroyed() === false ? this.window.webContents.id : undefined,
  );

  private readonly options: StudioHarnessOptions;
  private server: RendererServer | undefined;
  private browser: Browser | undefined;
  private context: BrowserContext | undefined;
  private currentPage: Page | undefined;
  private temporaryDirectory: string | undefined;
  private studio: StudioService | undefined;
  /** Stand-ins for Electron's ipcMain and the studio window, with the app's registration on them. */
  private ipcMain: StandInIpcMain | undefined;
  private window: StandInBrowserWindow | undefined;
  private unregister: (() => void) | undefined;
  private sendEvent: SendEvent | undefined;
  /** While {@link pushEvents} collects: the messages for one page round trip. */
  private outbox: Array<[string, unknown]> | undefined;
  /** The page round trip of the latest message main sent. */
  private delivery: Promise<void> = Promise.resolve();

  constructor(options: StudioHarnessOptions = {}) {
    this.options = options;
  }

  /** The logger handed to the core; records into {@link log}. */
  readonly logger: StudioLogger = {
    info: (message, fields) => this.log.push({ level: 'info', message, fields }),
    warn: (message, fields) => this.log.push({ level: 'warn', message, fields }),
    error: (message, fields) => this.log.push({ level: 'error', message, fields }),
  };

  /** The open page; throws before {@link open}. */
  get page(): Page {
    if (this.currentPage === undefined) throw new Error('StudioHarness: call open() first');
    return this.currentPage;
  }

  /** Where the page was loaded from, e.g. `http://127.0.0.1:41234/`. */
  get url(): string {
    if (this.server === undefined) throw new Error('StudioHarness: call open() first');
    return this.server.url;
  }

  /** The folder standing in for Electron's userData (created by open()). */
  get userDataDirectory(): string {
    if (this.options.userDataDirectory !== undefined) return this.options.userDataDirectory;
    if (this.temporaryDirectory === undefined) throw new Error('StudioHarness: call open() first');
    return path.join(this.temporaryDirectory, 'user-data');
  }

  /**
   * This harness's config folder, where the studio keeps workspace trust and approved key origins
   * (a `TrustStore` on it sees what the studio sees); throws before {@link open}.
   */
  get configDirectory(): string {
    if (this.temporaryDirectory === undefined) throw new Error('StudioHarness: call open() first');
    return path.join(this.temporaryDirectory, 'config');
  }

  /** Serves out/renderer, launches Chromium, installs the bridge and waits for the app shell. */
  async open(): Promise<void> {
    if (!existsSync(path.join(builtRendererDirectory, 'index.html'))) {
      throw new Error(`${builtRendererDirectory}/index.html is missing: run \`npm run build\` first`);
    }
    this.temporaryDirectory = await mkdtemp(path.join(os.tmpdir(), 'promptforge-e2e-'));
    await mkdir(this.userDataDirectory, { recursive: true });
    this.studio = new StudioService({
      userDataDirectory: this.userDataDirectory,
      examplesDirectory: path.join(repositoryRoot, 'examples'),
      secrets: this.options.secrets ?? new KeyringSecretStore({ service: 'PromptForge Studio (e2e)' }),
      chooseFolder: this.options.chooseFolder ?? (async () => null),
      chooseSaveFile: this.options.chooseSaveFile ?? (async () => null),
      openExternal: async (url) => {
        this.opened.push(url);
        await this.options.openExternal?.(url);
      },
      configDirectory: this.configDirectory,
      confirmPerson: this.options.confirmPerson ?? this.person.confirm,
      // Events reach the page through main's own sendEvent (checked against the contract).
      emit: (name, payload) => {
        if (this.currentPage === undefined) return;
        if (!this.sendEvent?.(name, payload)) {
          this.pageErrors.push(`main refused to push ${name}: see the harness log`);
          return;
        }
        this.delivery.catch((error: unknown) => {
          // Like webContents.send to a page that is reloading: the event is dropped, and the
          // reloaded page asks main for the current state. Anything else is a real error.
          if (NAVIGATION_RACE.test(String(error))) this.droppedEvents.push(name);
          else this.pageErrors.push(String(error));
        });
      },
    });
    const handlers =
      this.options.handlers ??
      createStudioHandlers({
        appName: 'PromptForge Studio',
        appVersion: await readOwnVersion(),
        userDataDirectory: this.userDataDirectory,
        service: this.studio,
      });
    const preload = readPreloadBundle();

    this.server = await startRendererServer(builtRendererDirectory);
    // The app's own glue on stand-ins for Electron: ipcMain and the studio window, whose
    // webContents.send delivers to the page. The loopback server is the trusted origin, as the
    // dev server is in the app.
    const ipcMain = (this.ipcMain = new StandInIpcMain());
    const webContents = new StandInWebContents((channel, payload) => this.deliver(channel, payload));
    this.window = new StandInBrowserWindow(webContents);
    const getWindow = (): StandInBrowserWindow | null =>
      this.window === undefined || this.window.isDestroyed() ? null : this.window;
    this.sendEvent = createEventSender(getWindow, this.logger);
    this.unregister = registerContractHandlers({
      ipcMain,
      getWindow,
      handlers,
      location: { kind: 'dev-server', url: this.server.url },
      logger: this.logger,
      personInput: this.person.personInput,
    });

    // The test run's shared Chromium when there is one (test/e2e/shared-browser.ts); closing a
    // connected browser closes this harness's context and disconnects.
    const shared = process.env[SHARED_BROWSER_ENV];
    this.browser = shared ? await chromium.connect(shared) : await chromium.launch(chromiumLaunchOptions);
    this.context = await this.browser.newContext({
      viewport: this.options.viewport ?? { width: 1280, height: 800 },
      colorScheme: 'dark',
      // Nothing spins: an endless animation makes Chromium draw every frame for as long as it shows.
      reducedMotion: 'reduce',
    });
    const page = await this.context.newPage();
    this.currentPage = page;
    page.on('console', (message) => {
      if (message.type() === 'error') this.pageErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => this.pageErrors.push(error.message));

    // The person's input: the page's trusted presses, reported from a world the page cannot reach
    // (what Electron's input-event reports in the app; test/e2e/person-stand-in.ts).
    const presses = await watchTrustedPresses(this.context, page, (press) => this.person.pressed(press));
    // The stand-in IPC channel: the page's ipcRenderer.invoke arrives here with the frame that sent
    // it, and goes to the app's registration as Electron's ipcMain would hand it over, once every
    // press the page made before the call has reached main.
    await page.exposeBinding(pageWire.invokeBinding, async (source, channel: unknown, ...args: unknown[]) => {
      try {
        await presses.flush();
        const result = (await ipcMain.invoke(
          webContents.invokeEvent(standInFrame(source.frame)),
          String(channel),
          ...args,
        )) as IpcResult<unknown>;
        this.calls.push({ method: channel, ok: result.ok });
        this.results.push(result);
        await this.options.holdReply?.(String(channel));
        return result;
      } catch (error) {
        this.calls.push({ method: channel, ok: false });
        throw error;
      }
    });
    // Under tsx (the benchmarks), esbuild wraps named functions in `__name(...)`; functions the
    // tests hand to page.evaluate run in the page, where that helper does not exist.
    await page.addInitScript('globalThis.__name ??= (fn) => fn;');
    // The app's preload, as Electron runs it: in the main frame, with require('electron').
    await page.addInitScript(preloadInitScript(preload, pageWire));
    await page.goto(this.server.url);
    await this.waitForAppShell();
  }

  /** The real core behind the page (runs, approvals, workspace); throws before {@link open}. */
  get service(): StudioService {
    if (this.studio === undefined) throw new Error('StudioHarness: call open() first');
    return this.studio;
  }

  /**
   * Calls contract method `method` as the page would (same handlers, same checks), from the test;
   * throws the error when the call fails. Not recorded in {@link calls}. The test acts as the
   * person: a method that a press pays for gets a stand-in press first ({@link PersonStandIn.pressForTest}).
   */
  async call<M extends ContractMethodName>(method: M, request: ContractRequest<M>): Promise<ContractResponse<M>> {
    const result = await this.invokeFromStudioWindow(method, request);
    if (!result.ok) throw new Error(`${method} failed: ${result.error.code}: ${result.error.message}`);
    return result.value;
  }

  /** One contract call through the app's registration, as the studio window's main frame sends it. */
  private async invokeFromStudioWindow<M extends ContractMethodName>(
    method: M,
    request: ContractRequest<M>,
  ): Promise<IpcResult<ContractResponse<M>>> {
    if (this.ipcMain === undefined || this.window === undefined) throw new Error('StudioHarness: call open() first');
    if (pressPaysFor(method)) this.person.pressForTest();
    const event = this.window.webContents.invokeEvent(standInFrame(this.page.mainFrame()));
    return (await this.ipcMain.invoke(event, method, request)) as IpcResult<ContractResponse<M>>;
  }

  /**
   * Trusts the open workspace the way a person does: reads its manifest (`trust:status`), then
   * grants that manifest (`trust:grant`, which main asks the person about: {@link person} says yes
   * unless a test queued a no). Call it after the test's own catalog edits and before the run:
   * any later change to a command or MCP tool, or to a policy, makes the workspace restricted again.
   * It first waits until the studio has read the workspace as it is on disk (the watcher reloads a
   * catalog edit a moment later), so the manifest granted is the one a run will be judged on.
   */
  async trustWorkspace(): Promise<WorkspaceTrustInfo> {
    const root = this.service.workspaceRoot;
    if (root === null) throw new Error('trustWorkspace: no workspace open');
    const deadline = Date.now() + 10_000;
    for (;;) {
      const onDisk = manifestDigest(workspaceManifest(await loadWorkspace(root)));
      const shown = await this.call('trust:status', {});
      if (shown.digest === onDisk) {
        if (shown.state !== 'restricted') return shown;
        const result = await this.invokeFromStudioWindow('trust:grant', { digest: shown.digest });
        if (result.ok) {
          if (!result.value.granted) throw new Error('trustWorkspace: the person said no');
          if (result.value.trust.state === 'restricted')
            throw new Error('trustWorkspace: the workspace is still restricted');
          return result.value.trust;
        }
        // Changed again between the two calls (a watcher reload): read the manifest again.
        if (result.error.code !== 'trust-changed')
          throw new Error(`trust:grant failed: ${result.error.code}: ${result.error.message}`);
      }
      if (Date.now() > deadline)
        throw new Error('trustWorkspace: the studio never read the workspace as it is on disk');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Closes the browser, the server and the temporary folders. Safe to call twice. */
  async close(): Promise<void> {
    await this.studio?.close();
    this.studio = undefined;
    this.unregister?.();
    this.unregister = undefined;
    this.window?.destroy();
    await this.context?.close();
    await this.browser?.close();
    await this.server?.close();
    if (this.temporaryDirectory !== undefined) await rm(this.temporaryDirectory, { recursive: true, force: true });
    this.context = undefined;
    this.browser = undefined;
    this.server = undefined;
    this.currentPage = undefined;
    this.temporaryDirectory = undefined;
  }

  /**
   * Saves a PNG of the window to {@link screenshotDirectory}/NAME.png (and, under `npm run
   * screenshots`, a copy to docs/screenshots when README.md shows NAME) and returns its path.
   */
  async screenshot(name: string): Promise<string> {
    await mkdir(screenshotDirectory, { recursive: true });
    const filePath = path.join(screenshotDirectory, `${name}.png`);
    await this.page.screenshot({ path: filePath, animations: 'disabled', caret: 'hide' });
    if (readmeScreenshotDirectory !== undefined && readmeScreenshotNames.has(name)) {
      await mkdir(readmeScreenshotDirectory, { recursive: true });
      await copyFile(filePath, path.join(readmeScreenshotDirectory, `${name}.png`));
    }
    return filePath;
  }

  /**
   * Pushes a contract event to the page through main's own `sendEvent` (payload checked against the
   * contract first) and the stand-in webContents; resolves once the page's listeners ran.
   */
  async pushEvent<E extends ContractEventName>(name: E, payload: ContractEventPayload<E>): Promise<void> {
    await this.pushEvents(name, [payload]);
  }

  /** Pushes many events of one kind (each through main's `sendEvent`) in a single page round trip. */
  async pushEvents<E extends ContractEventName>(
    name: E,
    payloads: ReadonlyArray<ContractEventPayload<E>>,
  ): Promise<void> {
    const sendEvent = this.sendEvent;
    if (sendEvent === undefined) throw new Error('StudioHarness: call open() first');
    const outbox: Array<[string, unknown]> = (this.outbox = []);
    try {
      payloads.forEach((payload, index) => {
        if (!sendEvent(name, payload)) {
          throw new Error(`pushEvent: ${name} payload ${index} is outside the contract (the harness log says where)`);
        }
      });
    } finally {
      this.outbox = undefined;
    }
    await this.deliverToPage(outbox);
  }

  /** The stand-in webContents' `send`: delivers to the page at once, or into the batch {@link pushEvents} collects. */
  private deliver(channel: string, payload: unknown): void {
    if (this.outbox !== undefined) this.outbox.push([channel, payload]);
    else this.delivery = this.deliverToPage([[channel, payload]]);
  }

  private async deliverToPage(messages: Array<[string, unknown]>): Promise<void> {
    const page = this.currentPage;
    if (page === undefined || messages.length === 0) return;
    // Typed as unknown: Playwright's serializable-argument type cannot follow the JSON event union.
    const list: unknown = messages;
    await page.evaluate(
      ([deliver, batch]) => {
        (globalThis as unknown as Record<string, (batch: unknown) => void>)[deliver as string]!(batch);
      },
      [pageWire.deliverEvents, list] as const,
    );
  }

  /** Switches the studio to `theme` with the header's theme button (a no-op when it is on already). */
  async useTheme(theme: 'dark' | 'light'): Promise<void> {
    const other = theme === 'dark' ? 'light' : 'dark';
    const toggle = this.page.getByRole('button', { name: `Switch to ${theme} theme` });
    if (await toggle.isVisible()) await toggle.click();
    await this.page.getByRole('button', { name: `Switch to ${other} theme` }).waitFor();
  }

  /** Waits until the header "PromptForge Studio" is rendered. */
  async waitForAppShell(): Promise<void> {
    await this.page.getByRole('heading', { level: 1, name: 'PromptForge Studio' }).waitFor();
  }

  /** Waits until `text` is visible somewhere in the page. */
  async waitForText(text: string): Promise<void> {
    await this.page.getByText(text, { exact: false }).first().waitFor();
  }

  /** Clicks the header's About button and waits for the panel to show the app info. */
  async openAbout(): Promise<void> {
    await this.page.getByRole('button', { name: 'About', exact: true }).click();
    await this.waitForAboutDetails();
  }

  /** Waits for the About panel's version list and returns its rows as `label -> value`. */
  waitForAboutDetails(): Promise<Record<string, string>> {
    return waitForAboutDetails(this.page);
  }

  /** Clicks "Open the example workspace" and waits until the first agent is open in the editor. */
  async openExampleWorkspace(): Promise<void> {
    await this.page.getByRole('button', { name: 'Open the example workspace' }).click();
    await this.agentButtons().first().waitFor();
    await this.page.locator('.agent-editor .cm-content').waitFor();
  }

  /** The explorer's agent buttons, in order. */
  agentButtons(): Locator {
    return this.page
      .getByRole('navigation', { name: 'Workspace explorer' })
      .getByRole('region', { name: 'Agents' })
      .locator('button.explorer-item');
  }

  /**
   * The explorer's button for agent `name` (e.g. `summarize-page`). Its accessible name starts
   * with the visible name, followed by its markers (`rec`, `●`), so it is matched by that start.
   */
  agentButton(name: string): Locator {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return this.page
      .getByRole('navigation', { name: 'Workspace explorer' })
      .getByRole('region', { name: 'Agents' })
      .getByRole('button', { name: new RegExp(`^${escaped}(\\s|$)`) });
  }

  /** The explorer's button that opens run `runId` (its accessible name is the agent and the time). */
  runButton(runId: string): Locator {
    return this.page.getByRole('navigation', { name: 'Workspace explorer' }).locator(`button[data-run-id="${runId}"]`);
  }

  /** Opens agent `name` (e.g. `summarize-page`) from the explorer and waits for its editor. */
  async openAgent(name: string): Promise<void> {
    await this.agentButton(name).click();
    await this.page.getByRole('region', { name: `Editor agents/${name}.lua` }).waitFor();
  }

  /** The runs whose end {@link waitForRunEnd} reported already. */
  private readonly endsReported = new Set<string>();

  /**
   * Waits until the run panel shows a run that has ended and whose end no earlier call reported;
   * returns its status (`ok`, `stopped`, ...). Right after a click on Run, the panel may still show
   * the previous run, ended: that one is not taken for the new one.
   */
  async waitForRunEnd(): Promise<string> {
    const unreported = [...this.endsReported].map((runId) => `:not([title=${JSON.stringify(runId)}])`).join('');
    const status = this.page
      .getByRole('region', { name: 'Run panel' })
      .locator(`.run-status${unreported}`)
      .filter({ has: this.page.locator('.status-pill', { hasText: /^(ok|error|stopped|limit)$/ }) });
    await status.waitFor();
    const runId = (await status.getAttribute('title')) ?? '';
    this.endsReported.add(runId);
    return (await status.locator('.status-pill').textContent()) ?? '';
  }

  /** Shows a run-panel tab (`Conversation`, `Approvals`, `Log`, `Usage/Timing`). */
  async showRunTab(name: 'Conversation' | 'Approvals' | 'Log' | 'Usage/Timing'): Promise<void> {
    await this.page.getByRole('tab', { name: new RegExp(`^${name.replace('/', '\\/')}`) }).click();
  }

  /** Replaces the whole text of the editor matched by `selector`, as a person does (see page-helpers.ts). */
  replaceEditorText(selector: string, text: string): Promise<void> {
    return replaceEditorText(this.page, selector, text);
  }

  /** The element that has focus, as `TAG.class1.class2[aria-label]` (see page-helpers.ts). */
  focusedElement(): Promise<string> {
    return focusedElement(this.page);
  }

  /** Starts recording every focus change in the page; {@link focusChanges} returns them. */
  recordFocusChanges(): Promise<void> {
    return recordFocusChanges(this.page);
  }

  /** The focus changes recorded since {@link recordFocusChanges}. */
  focusChanges(): Promise<string[]> {
    return focusChanges(this.page);
  }

  /** Waits until `count` approval cards are shown (the Approvals tab must be open). */
  async waitForApprovalCards(count: number): Promise<void> {
    await this.page
      .locator('.approval-card')
      .nth(count - 1)
      .waitFor();
  }

  /** Waits until a run's transcript in the workspace holds an event of `type`; returns its events. */
  waitForTranscriptEvent(runId: string, type: string): Promise<Array<Record<string, unknown>>> {
    const root = this.service.workspaceRoot;
    if (root === null) throw new Error('no workspace open');
    return waitForTranscriptEvent(root, runId, type);
  }
}

/** The stand-in `senderFrame` of a call from Playwright frame `frame`: its URL now, and its parent. */
function standInFrame(frame: Frame): StandInWebFrameMain {
  const parent = frame.parentFrame();
  return new StandInWebFrameMain(frame.url(), parent === null ? null : standInFrame(parent));
}

async function readOwnVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(repositoryRoot, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}
