import { describe, expect, it } from 'vitest';
import {
  isAllowedNavigation,
  isAppDocumentUrl,
  isTrustedSender,
  type AppLocation,
} from '../../../main/core/studio/app-location.js';

const appBuild: AppLocation = { kind: 'app', indexUrl: 'promptforge://studio/index.html' };
const devServer: AppLocation = { kind: 'dev-server', url: 'http://localhost:5173/' };

describe('isAllowedNavigation (will-navigate)', () => {
  it.each([
    ['promptforge://studio/index.html', true],
    ['promptforge://studio/index.html#/about', true],
    ['promptforge://studio/index.html?x=1', true],
    ['promptforge://studio/other.html', false],
    ['promptforge://studio/assets/../../index.html', true],
    ['promptforge://studio/assets/index.html', false],
    ['promptforge://other/index.html', false],
    ['promptforge://user@studio/index.html', false],
    ['promptforge://studio:8080/index.html', false],
    ['promptforge://STUDIO/index.html', false],
    ['file:///opt/PromptForge/resources/app.asar/out/renderer/index.html', false],
    ['file:///etc/passwd', false],
    ['https://evil.example/', false],
    ['http://localhost:5173/', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['not a url', false],
  ])('app build: %s -> %s', (url, allowed) => {
    expect(isAllowedNavigation(url, appBuild)).toBe(allowed);
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
  const appUrl = 'promptforge://studio/index.html';

  it('accepts the studio main frame showing the studio document', () => {
    expect(isTrustedSender({ url: appUrl, isStudioMainFrame: true }, appBuild)).toBe(true);
  });

  it('refuses a subframe even when it shows the studio document', () => {
    expect(isTrustedSender({ url: appUrl, isStudioMainFrame: false }, appBuild)).toBe(false);
  });

  it('refuses the main frame after it navigated elsewhere, and a missing frame', () => {
    expect(isTrustedSender({ url: 'https://evil.example/', isStudioMainFrame: true }, appBuild)).toBe(false);
    expect(isTrustedSender({ url: 'about:blank', isStudioMainFrame: true }, appBuild)).toBe(false);
    expect(isTrustedSender(null, appBuild)).toBe(false);
  });

  it('treats only the app document as the app, not every file: URL', () => {
    expect(isAppDocumentUrl('file:///home/someone/Downloads/index.html', appBuild)).toBe(false);
  });
});
