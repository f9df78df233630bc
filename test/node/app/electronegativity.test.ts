/**
 * Electronegativity (Doyensec's static checker for Electron apps, pinned in package.json) on the
 * built app in out/. The test fails on any finding that is not in {@link justifiedFindings}, and
 * on a justified finding that no longer appears (drop it from the list and from
 * docs/threat-model.md#electrons-security-checklist). `npm test` builds out/ first.
 *
 * Offline: Electronegativity downloads translations and Electron's release list with `got`. A
 * STAND-IN for `got` (see {@link refuseDownloads}) refuses every request, so the scan never
 * touches the network and ends the same everywhere; the one check that needs that list
 * (AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK, "is this Electron the newest of its line") has nothing
 * to report then. Its CLI is not used: offline it crashes on a retry timer inside `got`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { contentSecurityPolicy } from '../../../common/content-security-policy.js';

const repositoryRoot = path.resolve(import.meta.dirname, '../../..');
const outDirectory = path.join(repositoryRoot, 'out');
const require = createRequire(import.meta.url);

/** A finding we accept, with the reason (also in docs/threat-model.md#electronegativity-findings). */
interface JustifiedFinding {
  id: string;
  /** Relative to out/. */
  file: string;
  severity: string;
  confidence: string;
  reason: string;
}

const justifiedFindings: readonly JustifiedFinding[] = [
  {
    id: 'PRELOAD_JS_CHECK',
    file: 'main/index.js',
    severity: 'MEDIUM',
    confidence: 'FIRM',
    reason:
      'A manual-review item for any preload. Reviewed: preload/index.ts exposes one object, window.promptforge, ' +
      'built from the contract table: one invoke per contract method and on(event, listener) for contract events ' +
      'only, whose listener gets the payload and never the IpcRendererEvent; no ipcRenderer, no Node API.',
  },
  {
    id: 'AUXCLICK_JS_CHECK',
    file: 'main/index.js',
    severity: 'MEDIUM',
    confidence: 'FIRM',
    reason:
      "It asks for disableBlinkFeatures: 'Auxclick', a Blink feature Chromium no longer has (the flag would do " +
      'nothing). What it guards against, a middle-clicked link opening a window, goes through the window-open ' +
      'handler, which denies every window (hardenWebContents, main/app/session-security.ts).',
  },
  {
    id: 'OPEN_EXTERNAL_JS_CHECK',
    file: 'main/index.js',
    severity: 'MEDIUM',
    confidence: 'TENTATIVE',
    reason:
      'A manual-review item for any shell.openExternal. Reviewed: main calls it only through checkedOpener ' +
      '(main/core/studio/open-external.ts), which lets through https, or http on this machine, without ' +
      'credentials or invisible characters, and hands over the parsed URL. It opens only what a person pressed ' +
      'for: an MCP server URL question (the page sends its id, never a URL) or a sign-in page.',
  },
  {
    id: 'CSP_GLOBAL_CHECK',
    file: 'main/index.js',
    severity: 'LOW',
    confidence: 'TENTATIVE',
    reason:
      "'Failed to parse CSP': the header's value is the constant contentSecurityPolicy, not a string literal, so " +
      'the checker reads undefined. It is the same string as the meta tag, which it does parse (next entry).',
  },
  {
    id: 'CSP_GLOBAL_CHECK',
    file: 'renderer/index.html',
    severity: 'LOW',
    confidence: 'FIRM',
    reason:
      "The policy's only remark is \"script-src 'self' can be problematic if you host user uploaded files\". " +
      "The page loads from promptforge://studio, whose 'self' is the studio's own scheme: it serves the built " +
      "renderer's files and nothing a person or an agent writes (serveAppAsset, docs/threat-model.md, checklist " +
      'item 18).',
  },
];

/** What Electronegativity 1.10.3's programmatic API resolves to (its README, "Programmatically"). */
interface ScanResult {
  globalChecks: number;
  atomicChecks: number;
  /** Files it could not parse (so did not check). */
  errors: Array<{ file: string; message: string; tolerable: boolean }>;
  issues: Array<{
    id: string;
    file: string;
    location: { line: number; column: number };
    description: string;
    sample?: unknown;
    severity: { name: string };
    confidence: { name: string };
  }>;
}

type Scan = (options: { input: string; isRelative: boolean; electronVersionOverride: string }) => Promise<ScanResult>;

/**
 * Puts a STAND-IN for the `got` HTTP client into Node's module cache where Electronegativity's
 * files will look for it: every request (and `got.head`) is refused as if offline, and recorded.
 */
function refuseDownloads(runnerPath: string): string[] {
  const requested: string[] = [];
  const refuse = (url: unknown): Promise<never> => {
    requested.push(String(url));
    return Promise.reject(new Error(`stand-in for got: no downloads in tests (${String(url)})`));
  };
  const standInGot = Object.assign(refuse, { head: refuse });
  const distDirectory = path.dirname(runnerPath);
  // The two files that import got: translations, and the Electron release list.
  for (const user of ['locales/i18n.js', 'finder/checks/GlobalChecks/AvailableSecurityFixesGlobalCheck.js']) {
    const gotPath = createRequire(path.join(distDirectory, user)).resolve('got');
    require.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: standInGot } as NodeJS.Module;
  }
  return requested;
}

function keyOf(finding: { id: string; file: string; severity: string; confidence: string }): string {
  return `${finding.id} in ${finding.file} (${finding.severity}, ${finding.confidence})`;
}

describe('Electronegativity on the built app (out/)', () => {
  it('finds nothing beyond the justified findings, and each of those still', { timeout: 180_000 }, async () => {
    for (const built of ['main/index.js', 'preload/index.cjs', 'renderer/index.html']) {
      if (!existsSync(path.join(outDirectory, built))) {
        throw new Error(`out/${built} is missing: run npm run build first (npm test builds before it tests)`);
      }
    }
    const runnerPath = require.resolve('@doyensec/electronegativity');
    const requested = refuseDownloads(runnerPath);
    const scan = require(runnerPath) as Scan;
    const electronVersion = (require('electron/package.json') as { version: string }).version;
    // It prints its progress and the refused downloads with console.log; the findings are the result.
    const quiet = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    let result: ScanResult;
    try {
      result = await scan({ input: outDirectory, isRelative: true, electronVersionOverride: electronVersion });
    } finally {
      quiet.mockRestore();
    }

    expect(requested.length, 'the scan should have asked the stand-in for its downloads').toBeGreaterThan(0);
    expect(result.atomicChecks, 'Electronegativity loaded no checks').toBeGreaterThan(0);
    expect(result.errors, 'files Electronegativity could not parse, so did not check').toEqual([]);

    const findings = result.issues.map((issue) => ({
      id: issue.id,
      file: issue.file.split(path.sep).join('/'),
      severity: issue.severity.name,
      confidence: issue.confidence.name,
      line: issue.location.line,
      description: issue.description,
      sample: issue.sample,
    }));
    const found = findings.map(keyOf).sort();
    const justified = justifiedFindings.map(keyOf).sort();
    const unexpected = findings.filter((finding) => !justified.includes(keyOf(finding)));
    expect(
      unexpected.map((finding) => `${keyOf(finding)} at line ${finding.line}: ${finding.description}`),
      'new findings: fix them, or justify them in justifiedFindings and docs/threat-model.md',
    ).toEqual([]);
    expect(found, 'each justified finding appears exactly once; drop the ones that no longer appear').toEqual(
      justified,
    );

    // The two CSP entries are what their reasons say: the meta tag carries the shipped policy, and
    // the header's "parse failure" is the unread constant, not a malformed policy.
    const csp = findings.filter((finding) => finding.id === 'CSP_GLOBAL_CHECK');
    expect(csp.find((finding) => finding.file === 'renderer/index.html')?.sample).toBe(contentSecurityPolicy);
    expect(csp.find((finding) => finding.file === 'main/index.js')?.sample).toBeUndefined();
  });
});
