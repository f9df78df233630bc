import { describe, expect, it } from 'vitest';
import {
  isAllowedNavigation,
  isAppDocumentUrl,
  isTrustedSender,
  type AppLocation,
} from '../../../main/core/studio/app-location.js';

const fileBuild: AppLocation = {
  kind: 'file',
  indexUrl: 'file:///opt/PromptForge/resources/app.asar/out/renderer/index.html',
};
const devServer: AppLocation = { kind: 'dev-server', url: 'http://localhost:5173/' };

describe('isAllowedNavigation (will-navigate)', () => {
  it.each([
    ['file:///opt/PromptForge/resources/app.asar/out/renderer/index.html', true],
    ['file:///opt/PromptForge/resources/app.asar/out/renderer/index.html#/about', true],
    ['file:///opt/PromptForge/resources/app.asar/out/renderer/other.html', false],
    ['file:///opt/PromptForge/resources/app.asar/out/renderer/../../../../../etc/passwd', false],
    ['file:///etc/passwd', false],
    ['file://evil.example/opt/PromptForge/resources/app.asar/out/renderer/index.html', false],
    ['https://evil.example/', false],
    ['http://localhost:5173/', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['not a url', false],
  ])('file build: %s -> %s', (url, allowed) => {
    expect(isAllowedNavigation(url, fileBuild)).toBe(allowed);
  });

  it.each([
    ['http://localhost:5173/', true],
    ['http://localhost:5173/index.html?x=1', true],
    ['http://localhost:5174/', false],
    ['http://127.0.0.1:5173/', false],
    ['https://localhost:5173/', false],
    ['file:///opt/PromptForge/resources/app.asar/out/renderer/index.html', false],
  ])('dev server: %s -> %s', (url, allowed) => {
    expect(isAllowedNavigation(url, devServer)).toBe(allowed);
  });
});

describe('isTrustedSender (IPC sender frame check)', () => {
  const appUrl = 'file:///opt/PromptForge/resources/app.asar/out/renderer/index.html';

  it('accepts the studio main frame showing the studio document', () => {
    expect(isTrustedSender({ url: appUrl, isStudioMainFrame: true }, fileBuild)).toBe(true);
  });

  it('refuses a subframe even when it shows the studio document', () => {
    expect(isTrustedSender({ url: appUrl, isStudioMainFrame: false }, fileBuild)).toBe(false);
  });

  it('refuses the main frame after it navigated elsewhere, and a missing frame', () => {
    expect(isTrustedSender({ url: 'https://evil.example/', isStudioMainFrame: true }, fileBuild)).toBe(false);
    expect(isTrustedSender({ url: 'about:blank', isStudioMainFrame: true }, fileBuild)).toBe(false);
    expect(isTrustedSender(null, fileBuild)).toBe(false);
  });

  it('treats only the app document as the app, not every file: URL', () => {
    expect(isAppDocumentUrl('file:///home/someone/Downloads/index.html', fileBuild)).toBe(false);
  });
});
