/**
 * Accessibility audit for the e2e suite: runs axe-core (the engine behind Lighthouse's and
 * Deque's audits) in the page and fails on any serious or critical violation.
 *
 * ```ts
 * import { expectNoSeriousAxeViolations } from './axe.js';
 * await expectNoSeriousAxeViolations(studio.page, 'conversation (dark)');
 * ```
 *
 * The studio ships a strict Content-Security-Policy (script-src 'self', no inline scripts), so a
 * `<script>` tag with axe's source would be refused, and the app's policy is not loosened for a
 * test. Instead axe's source is evaluated through the DevTools protocol (`page.evaluate` of a
 * string), which runs as the debugger does, outside the page's policy. axe itself needs no eval.
 * A CSP violation report would land in `StudioHarness.pageErrors`, so a test that checks those
 * also proves the audit did not break the policy.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright';

/** One element that fails a rule. */
interface AxeNode {
  target: string[];
  html: string;
  failureSummary: string;
}

/** One rule that failed, with the elements that fail it. */
interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  nodes: AxeNode[];
}

/** What an audit may leave out. */
export interface AxeAuditOptions {
  /** CSS selectors of parts of the page that are not audited (use sparingly, and say why). */
  exclude?: string[];
  /** Rule ids to switch off (use sparingly, and say why at the call). */
  disableRules?: string[];
}

/** The impacts that fail a test. */
const failingImpacts = new Set(['serious', 'critical']);

let axeSource: Promise<string> | undefined;

/** axe-core's browser build, read once per test process. */
function readAxeSource(): Promise<string> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/**
 * Runs axe-core on the whole page (open shadow roots included, so the editors are audited too)
 * against WCAG 2.x A and AA and axe's best practices; returns every violation, any impact.
 */
async function auditAccessibility(page: Page, options: AxeAuditOptions = {}): Promise<AxeViolation[]> {
  const installed = await page.evaluate('typeof globalThis.axe === "object"');
  if (installed !== true) await page.evaluate(await readAxeSource());
  const rules = Object.fromEntries((options.disableRules ?? []).map((id) => [id, { enabled: false }]));
  // A string, not a function: the test process's tsconfig has no DOM types for `axe` in the page.
  const script = `(async () => {
    const context = ${JSON.stringify(options.exclude?.length ? { exclude: options.exclude.map((selector) => [selector]) } : null)};
    const result = await globalThis.axe.run(context ?? document, {
      resultTypes: ['violations'],
      rules: ${JSON.stringify(rules)},
    });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      helpUrl: violation.helpUrl,
      nodes: violation.nodes.map((node) => ({
        target: node.target.map((part) => (Array.isArray(part) ? part.join(' >>> ') : String(part))),
        html: node.html,
        failureSummary: node.failureSummary ?? '',
      })),
    }));
  })()`;
  return (await page.evaluate(script)) as AxeViolation[];
}

/** The serious and critical violations of a list, as readable lines (empty when there are none). */
function describeSeriousViolations(violations: readonly AxeViolation[], nodesPerRule = 8): string[] {
  const lines: string[] = [];
  for (const violation of violations) {
    if (violation.impact === null || !failingImpacts.has(violation.impact)) continue;
    lines.push(`${violation.impact} ${violation.id} (${violation.nodes.length}×): ${violation.help}`);
    for (const node of violation.nodes.slice(0, nodesPerRule)) {
      const why = node.failureSummary.replace(/\s+/g, ' ').trim();
      lines.push(`  - ${node.target.join(' ')}: ${why.slice(0, 240)}`);
    }
    if (violation.nodes.length > nodesPerRule) lines.push(`  … and ${violation.nodes.length - nodesPerRule} more`);
  }
  return lines;
}

/**
 * Audits the page and throws a readable list when axe finds any serious or critical violation.
 * `view` names what is on screen (e.g. `conversation (light)`), for the message.
 */
export async function expectNoSeriousAxeViolations(
  page: Page,
  view: string,
  options: AxeAuditOptions = {},
): Promise<void> {
  const lines = describeSeriousViolations(await auditAccessibility(page, options));
  if (lines.length > 0) {
    throw new Error(`axe-core: serious or critical accessibility violations on ${view}:\n${lines.join('\n')}`);
  }
}
