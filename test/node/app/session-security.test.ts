/**
 * main/app/session-security.ts against STAND-INS for Electron's `Session` and `WebContents` (no
 * Electron binary runs on this machine): {@link standInSession} keeps the handlers the glue
 * installs, {@link StandInGuardedContents} is a real EventEmitter, as a `WebContents` is, plus the
 * window-open handler slot. The tests call those handlers as Electron would and read the answers.
 */
import { EventEmitter } from 'node:events';
import type {
  HandlerDetails,
  HeadersReceivedResponse,
  OnHeadersReceivedListenerDetails,
  Session,
  WebContents,
} from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { contentSecurityPolicy } from '../../../common/content-security-policy.js';
import type { AppLocation } from '../../../main/core/studio/app-location.js';
import { hardenWebContents, installSessionSecurity } from '../../../main/app/session-security.js';

const indexUrl = 'promptforge://studio/index.html';
const appBuild: AppLocation = { kind: 'app', indexUrl };
const devServer: AppLocation = { kind: 'dev-server', url: 'http://localhost:5173/' };

function recordingLogger() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
}

type HeadersListener = NonNullable<Parameters<Session['webRequest']['onHeadersReceived']>[0]>;
type PermissionRequestHandler = NonNullable<Parameters<Session['setPermissionRequestHandler']>[0]>;
type PermissionCheckHandler = NonNullable<Parameters<Session['setPermissionCheckHandler']>[0]>;
type DevicePermissionHandler = NonNullable<Parameters<Session['setDevicePermissionHandler']>[0]>;

/** A STAND-IN for Electron's `Session`: it keeps what installSessionSecurity installs. */
function standInSession() {
  const installed: {
    headers?: HeadersListener;
    permissionRequest?: PermissionRequestHandler;
    permissionCheck?: PermissionCheckHandler;
    devicePermission?: DevicePermissionHandler;
  } = {};
  const session = {
    webRequest: {
      onHeadersReceived: (listener: HeadersListener) => (installed.headers = listener),
    },
    setPermissionRequestHandler: (handler: PermissionRequestHandler) => (installed.permissionRequest = handler),
    setPermissionCheckHandler: (handler: PermissionCheckHandler) => (installed.permissionCheck = handler),
    setDevicePermissionHandler: (handler: DevicePermissionHandler) => (installed.devicePermission = handler),
  };
  return { session: session as unknown as Session, installed };
}

/** What the installed header listener answers for a response from `url`, as Electron calls it. */
function headersFor(listener: HeadersListener | undefined, url: string): HeadersReceivedResponse {
  if (listener === undefined) throw new Error('installSessionSecurity installed no onHeadersReceived listener');
  const responses: HeadersReceivedResponse[] = [];
  const details = {
    url,
    responseHeaders: { 'Content-Type': ['text/html'] },
  } as Partial<OnHeadersReceivedListenerDetails>;
  listener(details as OnHeadersReceivedListenerDetails, (response) => responses.push(response));
  expect(responses, `the listener must answer every response exactly once (${url})`).toHaveLength(1);
  return responses[0]!;
}

describe('installSessionSecurity: the CSP header', () => {
  it.each([indexUrl, 'promptforge://studio/assets/index-abc.js', 'https://api.example.com/v1/chat'])(
    'a build sends the shipped policy on every response, keeping its other headers (%s)',
    (url) => {
      const { session, installed } = standInSession();
      installSessionSecurity(session, appBuild, recordingLogger());
      expect(headersFor(installed.headers, url)).toEqual({
        responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [contentSecurityPolicy] },
      });
    },
  );

  it("leaves the dev server's own responses alone (its meta tag carries the dev policy) and no other origin's", () => {
    const { session, installed } = standInSession();
    installSessionSecurity(session, devServer, recordingLogger());
    expect(headersFor(installed.headers, 'http://localhost:5173/')).toEqual({});
    expect(headersFor(installed.headers, 'http://localhost:5173/src/main.tsx')).toEqual({});
    for (const other of ['http://localhost:51730/', 'http://localhost:5173.evil.example/', 'https://localhost:5173/']) {
      expect(headersFor(installed.headers, other).responseHeaders, other).toHaveProperty('Content-Security-Policy', [
        contentSecurityPolicy,
      ]);
    }
  });
});

describe('installSessionSecurity: permissions', () => {
  it('denies every permission request, and logs each one', () => {
    const { session, installed } = standInSession();
    const logger = recordingLogger();
    installSessionSecurity(session, appBuild, logger);
    for (const permission of ['notifications', 'media', 'geolocation', 'clipboard-read', 'openExternal'] as const) {
      const answers: boolean[] = [];
      installed.permissionRequest!({} as WebContents, permission, (granted) => answers.push(granted), {} as never);
      expect(answers, permission).toEqual([false]);
      expect(logger.warn).toHaveBeenCalledWith('denied permission request', { permission });
    }
  });

  it('answers every permission check and every device (USB, HID, serial) check with no', () => {
    const { session, installed } = standInSession();
    installSessionSecurity(session, appBuild, recordingLogger());
    for (const permission of ['notifications', 'clipboard-sanitized-write', 'fullscreen', 'hid'] as const) {
      expect(installed.permissionCheck!(null, permission, 'file://', {} as never), permission).toBe(false);
    }
    expect(installed.devicePermission!({ deviceType: 'usb' } as never)).toBe(false);
  });
});

/** A STAND-IN for a `WebContents`: a real EventEmitter (as Electron's is) plus its window-open handler slot. */
class StandInGuardedContents extends EventEmitter {
  windowOpenHandler?: (details: HandlerDetails) => unknown;

  setWindowOpenHandler(handler: (details: HandlerDetails) => unknown): void {
    this.windowOpenHandler = handler;
  }

  /** Emits `name` with an event whose preventDefault is recorded; true when a listener prevented it. */
  prevented(name: string, ...args: unknown[]): boolean {
    let prevented = false;
    this.emit(name, { preventDefault: () => (prevented = true) }, ...args);
    return prevented;
  }
}

function guarded(location: AppLocation) {
  const contents = new StandInGuardedContents();
  const logger = recordingLogger();
  hardenWebContents(contents as unknown as WebContents, location, logger);
  return { contents, logger };
}

const outside = [
  'file:///etc/passwd',
  'file:///opt/PromptForge/resources/app.asar/out/renderer/index.html',
  'promptforge://studio/other.html',
  'https://evil.example/',
  'http://localhost:5173/',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
];

describe('hardenWebContents', () => {
  it.each(['will-navigate', 'will-redirect'])('%s: only the studio document itself is allowed', (event) => {
    const { contents, logger } = guarded(appBuild);
    expect(contents.prevented(event, indexUrl)).toBe(false);
    expect(contents.prevented(event, `${indexUrl}#/history`)).toBe(false);
    for (const url of outside) {
      expect(contents.prevented(event, url), url).toBe(true);
      expect(logger.warn).toHaveBeenCalledWith(event === 'will-navigate' ? 'blocked navigation' : 'blocked redirect', {
        url,
      });
    }
  });

  it('dev server: navigation stays on its origin', () => {
    const { contents } = guarded(devServer);
    expect(contents.prevented('will-navigate', 'http://localhost:5173/index.html')).toBe(false);
    expect(contents.prevented('will-navigate', 'http://localhost:5174/')).toBe(true);
    expect(contents.prevented('will-redirect', indexUrl)).toBe(true);
  });

  it('denies every window.open and every middle-click or target=_blank link, the studio URL included', () => {
    const { contents, logger } = guarded(appBuild);
    for (const url of [indexUrl, ...outside]) {
      const details = { url, frameName: '', features: '', disposition: 'background-tab' } as HandlerDetails;
      expect(contents.windowOpenHandler?.(details), url).toEqual({ action: 'deny' });
      expect(logger.warn).toHaveBeenCalledWith('blocked window.open', { url });
    }
  });

  it('refuses to attach any <webview>', () => {
    const { contents, logger } = guarded(appBuild);
    expect(
      contents.prevented('will-attach-webview', { nodeIntegration: false }, { src: 'https://evil.example/' }),
    ).toBe(true);
    expect(logger.warn).toHaveBeenCalledWith('blocked <webview>');
  });
});
