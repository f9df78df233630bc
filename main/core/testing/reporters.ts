import type { Failure } from './assertions.js';
import type { TestStep as Step } from '../../../common/test-schemas.js';
import { stepText } from './case-trace.js';
import type { CaseResult } from './run-case.js';
import type { SuiteResult } from './suite.js';

/** Counts of a suite's results. */
export interface SuiteCounts {
  total: number;
  passed: number;
  failed: number;
  errors: number;
  notRun: number;
}

export function countResults(suite: SuiteResult): SuiteCounts {
  const counts = {
    total: suite.results.length + suite.notRun.length,
    passed: 0,
    failed: 0,
    errors: 0,
    notRun: suite.notRun.length,
  };
  for (const result of suite.results) {
    if (result.outcome === 'passed') counts.passed += 1;
    else if (result.outcome === 'failed') counts.failed += 1;
    else counts.errors += 1;
  }
  return counts;
}

/** Where a failure diverged, as the reports say it: `at event 12 (round 2, call 2)`, `after the run (…)`. */
export function stepPhrase(step: Step): string {
  return `${step.afterRun ? '' : 'at '}${stepText(step)}`;
}

/** One failure in words: field, expected, actual, and the step where the run diverged. */
export function failureLines(failure: Failure): string[] {
  return [
    `${failure.field}${failure.step ? ` ${stepPhrase(failure.step)}` : ''}`,
    `  expected: ${failure.expected}`,
    `  actual:   ${failure.actual}`,
  ];
}

/** The human report of a finished case that did not pass (a passing one is a single line). */
export function caseLines(
  result: CaseResult,
  options: { replay?: (result: CaseResult) => string | undefined } = {},
): string[] {
  const model = result.model ? ` [${result.model}]` : '';
  const head = `${result.outcome === 'passed' ? 'PASS' : result.outcome === 'failed' ? 'FAIL' : 'ERROR'} ${result.file}:${result.line} ${result.name}${model}`;
  if (result.outcome === 'passed') return [head];
  const lines = [head];
  if (result.error) lines.push(`  ${result.error}`);
  for (const failure of result.failures) lines.push(...failureLines(failure).map((line) => `  ${line}`));
  const replay = options.replay?.(result);
  if (replay) lines.push(`  ${replay}`);
  return lines;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${Math.round((100 * part) / whole)}%`;
}

/** `--model A,B`: pass rate, tokens, cost and latency per model, as the lines of a table. */
export function comparisonTable(results: readonly CaseResult[], models: readonly string[]): string[] {
  const rows = models.map((model) => {
    const mine = results.filter((result) => result.model === model);
    const passed = mine.filter((result) => result.outcome === 'passed').length;
    const tokens = mine.reduce((sum, result) => sum + (result.run?.tokens ?? 0), 0);
    const costs = mine.map((result) => result.run?.cost).filter((cost): cost is number => cost !== undefined);
    const durations = mine.map((result) => result.run?.durationMs ?? 0).sort((a, b) => a - b);
    const median = durations.length ? durations[Math.floor((durations.length - 1) / 2)]! : 0;
    return [
      model,
      `${passed}/${mine.length} (${percent(passed, mine.length)})`,
      String(tokens),
      costs.length ? costs.reduce((a, b) => a + b, 0).toFixed(4) : '-',
      `${Math.round(median)} ms`,
    ];
  });
  const header = ['model', 'passed', 'tokens', 'cost', 'median latency'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

/** The `--json` report (also written as report.json in the suite folder). */
export function jsonReport(suite: SuiteResult, extra: { suiteRunId: string; folder?: string }) {
  return {
    suiteRunId: extra.suiteRunId,
    ...(extra.folder && { folder: extra.folder }),
    interrupted: suite.interrupted,
    durationMs: Math.round(suite.durationMs),
    counts: countResults(suite),
    results: suite.results,
    notRun: suite.notRun,
  };
}

/** Characters XML 1.0 cannot hold at all (not even escaped), replaced by U+FFFD. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text escaped for an XML attribute value or element content. */
export function xmlEscape(text: string): string {
  return text
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

/** Element content: like an attribute, but line breaks stay readable. */
function xmlText(text: string): string {
  return xmlEscape(text).replace(/&#10;/g, '\n').replace(/&#9;/g, '\t');
}

function seconds(ms: number | undefined): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

/**
 * The JUnit XML report CI systems read (Jenkins' junit step, GitLab's `artifacts:reports:junit`):
 * `<testsuites>` with one `<testsuite>` per test file (and model), one `<testcase>` per case with
 * `<failure>`, `<error>` or `<skipped>`, and the transcript path in `<system-out>`.
 */
export function junitXml(
  suite: SuiteResult,
  options: { suiteRunId: string; timestamp: string; byModel?: boolean },
): string {
  const groups = new Map<
    string,
    { file: string; model: string; cases: string[]; failures: number; errors: number; skipped: number; ms: number }
  >();
  const named = (name: string, model: string) => (options.byModel ? `${name} [${model}]` : name);
  const group = (file: string, model: string) => {
    const key = `${file}\u0000${model}`;
    let entry = groups.get(key);
    if (!entry) groups.set(key, (entry = { file, model, cases: [], failures: 0, errors: 0, skipped: 0, ms: 0 }));
    return entry;
  };
  for (const result of suite.results) {
    const entry = group(result.file, options.byModel ? result.model : '');
    const classname = result.file.replace(/\.ya?ml$/i, '').replace(/[/\\]/g, '.');
    const attributes = `name="${xmlEscape(named(result.name, result.model))}" classname="${xmlEscape(classname)}" file="${xmlEscape(result.file)}" line="${result.line}" time="${seconds(result.run?.durationMs)}"`;
    const body: string[] = [];
    if (result.outcome === 'failed') {
      entry.failures += 1;
      const first = result.failures[0]!;
      const details = result.failures.flatMap(failureLines).join('\n');
      body.push(
        `      <failure message="${xmlEscape(`${first.field}: expected ${first.expected}`)}" type="AssertionError">${xmlText(details)}</failure>`,
      );
    } else if (result.outcome === 'error') {
      entry.errors += 1;
      body.push(
        `      <error message="${xmlEscape(result.error ?? 'error')}" type="CaseError">${xmlText(result.error ?? '')}</error>`,
      );
    }
    if (result.run?.transcript)
      body.push(`      <system-out>${xmlText(`transcript: ${result.run.transcript}`)}</system-out>`);
    entry.ms += result.run?.durationMs ?? 0;
    entry.cases.push(
      body.length
        ? `    <testcase ${attributes}>\n${body.join('\n')}\n    </testcase>`
        : `    <testcase ${attributes}/>`,
    );
  }
  for (const skipped of suite.notRun) {
    const entry = group(skipped.file, options.byModel ? skipped.model : '');
    const classname = skipped.file.replace(/\.ya?ml$/i, '').replace(/[/\\]/g, '.');
    entry.skipped += 1;
    entry.cases.push(
      `    <testcase name="${xmlEscape(named(skipped.name, skipped.model))}" classname="${xmlEscape(classname)}" file="${xmlEscape(skipped.file)}" time="0.000">\n      <skipped message="not run: the suite was interrupted"/>\n    </testcase>`,
    );
  }
  const counts = countResults(suite);
  const suites = [...groups.values()].map(
    (entry) =>
      `  <testsuite name="${xmlEscape(named(entry.file, entry.model))}" tests="${entry.cases.length}" failures="${entry.failures}" errors="${entry.errors}" skipped="${entry.skipped}" time="${seconds(entry.ms)}" timestamp="${xmlEscape(options.timestamp)}">\n${entry.cases.join('\n')}\n  </testsuite>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(`promptforge test ${options.suiteRunId}`)}" tests="${counts.total}" failures="${counts.failed}" errors="${counts.errors}" skipped="${counts.notRun}" time="${seconds(suite.durationMs)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
