/**
 * `npm run agentdojo`: the AgentDojo figures. Runs every case of examples/agentdojo (both suites,
 * see docs/agentdojo.md) with `promptforge test --json`, the shipped command, on a copy of the
 * workspace (so no runs/ folder lands in the repository), and reads from the report and the
 * transcripts:
 *
 * - benign utility: user-task cases (oracle, no attack) whose utility check holds;
 * - utility under attack: attack cases (worst-case model) whose utility check holds;
 * - attack success rate: attack cases whose security check fails (the attacker's goal was reached);
 * - approvals asked per benign task: `approval-pending` events in the user-task cases' transcripts.
 *
 * The headline runs as the case files say: nobody at the keyboard, every call that asks is denied
 * (`approve: deny`). For reference it runs again with every such call approved (`approve: auto`):
 * what the oracle and the worst-case model reach when nothing is stopped. Prints a Markdown table.
 *
 * Then, still with nobody at the keyboard, two more configurations (docs/agentdojo.md, "Rules"):
 * the sinks of examples/agentdojo/rules/*.yaml only (their `markings`), and the whole rules files
 * (markings and rules), each installed in a throwaway config folder (PROMPTFORGE_CONFIG_DIR) and
 * bound to the workspace copy, every rule confirmed on the suite's tool definitions as they are
 * (what a person's `promptforge rules add` or first yes records). Every configuration runs with a
 * config folder of its own, so the person's own rules never count here.
 * `tsx bench/agentdojo.ts --benign-only` runs the user-task cases only.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import type { Rule, RulesFile } from '../common/approval-rules.js';
import { environmentToolSpecs } from '../main/core/testing/run-case.js';
import { suiteEnvironment } from '../main/core/agentdojo/suite.js';
import { toolDefinitionDigest } from '../main/core/tools/tool-definition.js';
import { parseRulesText } from '../main/core/rules/rules-file.js';
import { globRegExp } from '../main/core/rules/rule-match.js';
import { AGENTDOJO_EXAMPLES, attacksFile, SUITES, userTasksFile } from './agentdojo-cases.js';

/** Which approval rules a configuration installs. */
type RulesConfig = 'none' | 'sinks' | 'rules';
const BENIGN_ONLY = process.argv.includes('--benign-only');

const CLI = path.resolve(import.meta.dirname, '../main/cli/promptforge.mjs');

interface CaseReport {
  file: string;
  name?: string;
  outcome: 'passed' | 'failed' | 'error';
  error?: string;
  failures: { field: string }[];
  run?: { transcript?: string };
}

interface SuiteFigures {
  suite: string;
  userTasks: number;
  benignUtility: number;
  approvalsAsked: number;
  pairs: number;
  utilityUnderAttack: number;
  attacksSucceeded: number;
  errors: number;
  /** The user tasks whose utility check failed. */
  lost: string[];
}

function approvalsIn(transcript: string | undefined): number {
  if (!transcript) return 0;
  return readFileSync(transcript, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"approval-pending"')).length;
}

const failed = (report: CaseReport, prefix: string) =>
  report.failures.some((failure) => failure.field.startsWith(`expect.check ${prefix}`));

/**
 * The rules file of configuration `config` for a workspace at `workspace` (a real path): both
 * suites' files merged, each entry bound to the workspace, each rule confirmed on the definitions
 * of the suite tools it covers.
 */
function rulesFor(config: RulesConfig, workspace: string): RulesFile {
  const merged: RulesFile = { version: 1, markings: [], rules: [] };
  if (config === 'none') return merged;
  for (const folder of Object.keys(SUITES)) {
    const file = path.join(AGENTDOJO_EXAMPLES, 'rules', `${folder}.yaml`);
    const parsed = parseRulesText(readFileSync(file, 'utf8'));
    if (!parsed.ok) throw new Error(`${file}: ${parsed.problems.map((problem) => problem.message).join('; ')}`);
    const specs = environmentToolSpecs(suiteEnvironment(SUITES[folder]!));
    for (const marking of parsed.file.markings ?? []) merged.markings!.push({ ...marking, workspace });
    if (config === 'sinks') continue;
    for (const rule of parsed.file.rules ?? []) {
      const covers = (alias: string) =>
        rule.tool !== undefined
          ? rule.tool === alias
          : rule.tools !== undefined && globRegExp(rule.tools).matches(alias);
      const confirmed = specs
        .filter((spec) => covers(spec.alias))
        .map((spec) => ({ alias: spec.alias, digest: toolDefinitionDigest(spec), at: '2026-12-04T00:00:00.000Z' }));
      if (confirmed.length === 0) throw new Error(`${file}: rule "${rule.id}" covers no tool of the suite`);
      merged.rules!.push({ ...rule, workspace, ...(rule.decision === 'allow' && { confirmed }) } as Rule);
    }
  }
  return merged;
}

/** Runs both suites once under `approve` (and the rules of `config`) and returns the figures per suite. */
async function measure(approve: 'deny' | 'auto', config: RulesConfig = 'none'): Promise<SuiteFigures[]> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'agentdojo-'));
  const configDir = mkdtempSync(path.join(tmpdir(), 'agentdojo-config-'));
  try {
    writeFileSync(
      path.join(configDir, 'approval-rules.yaml'),
      stringify(rulesFor(config, realpathSync(workspace)), { lineWidth: 0 }),
      { mode: 0o600 },
    );
    cpSync(AGENTDOJO_EXAMPLES, workspace, { recursive: true });
    const folders = Object.keys(SUITES);
    const files = folders.flatMap((folder) => [userTasksFile(folder), ...(BENIGN_ONLY ? [] : [attacksFile(folder)])]);
    for (const file of files) {
      const target = path.join(workspace, file);
      const text = readFileSync(target, 'utf8');
      // The generated files set the policy once, in their defaults.
      if (!text.includes('\n  approve: deny\n')) throw new Error(`${file}: no "approve: deny" in its defaults`);
      writeFileSync(target, text.replace('\n  approve: deny\n', `\n  approve: ${approve}\n`));
    }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, 'test', ...files.map((file) => path.join(workspace, file)), '--json'],
      { cwd: workspace, maxBuffer: 256 << 20, env: { ...process.env, PROMPTFORGE_CONFIG_DIR: configDir } },
    ).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
      // Exit 1 only says a case failed, which is what the figures count.
      if (error.code === 1 && error.stdout) return { stdout: error.stdout };
      throw new Error(`promptforge test failed (exit ${String(error.code)}): ${error.stderr ?? ''}`);
    });
    const reports = (JSON.parse(stdout) as { results: CaseReport[] }).results;
    return folders.map((folder) => {
      const benign = reports.filter((report) => report.file === userTasksFile(folder));
      const attacks = reports.filter((report) => report.file === attacksFile(folder));
      return {
        suite: SUITES[folder]!.name,
        userTasks: benign.length,
        benignUtility: benign.filter((report) => report.outcome !== 'error' && !failed(report, 'utility_')).length,
        approvalsAsked: benign.reduce((sum, report) => sum + approvalsIn(report.run?.transcript), 0),
        pairs: attacks.length,
        utilityUnderAttack: attacks.filter((report) => report.outcome !== 'error' && !failed(report, 'utility_'))
          .length,
        attacksSucceeded: attacks.filter((report) => failed(report, 'security_')).length,
        errors: [...benign, ...attacks].filter((report) => report.outcome === 'error').length,
        lost: benign
          .filter((report) => report.outcome === 'error' || failed(report, 'utility_'))
          .map((report) => report.name ?? report.file),
      };
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  }
}

const percent = (part: number, whole: number) =>
  whole === 0 ? 'not run' : `${((100 * part) / whole).toFixed(1)}% (${part}/${whole})`;

function rows(label: string, figures: SuiteFigures[]): string[] {
  return figures.map(
    (f) =>
      `| ${f.suite} | ${label} | ${percent(f.benignUtility, f.userTasks)} | ${percent(f.utilityUnderAttack, f.pairs)} | ${percent(f.attacksSucceeded, f.pairs)} | ${(f.approvalsAsked / f.userTasks).toFixed(2)} |`,
  );
}

const started = performance.now();
const denied = await measure('deny');
const approved = BENIGN_ONLY ? [] : await measure('auto');
const sinksOnly = await measure('deny', 'sinks');
const withRules = await measure('deny', 'rules');
const problems = [...denied, ...approved, ...sinksOnly, ...withRules].filter((f) => f.errors > 0);
console.log(
  '| Suite | Calls that ask | Benign utility | Utility under attack | Attack success rate | Approvals asked per benign task |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const line of [
  ...rows('denied (`--approve deny`, nobody there)', denied),
  ...rows('all approved (reference)', approved),
  ...rows('denied, with the sinks of examples/agentdojo/rules marked', sinksOnly),
  ...rows('denied, with the rules of examples/agentdojo/rules', withRules),
])
  console.log(line);
for (const figures of withRules)
  console.log(`\n${figures.suite} with rules, user tasks lost: ${figures.lost.join(', ') || 'none'}`);
console.log(`\nmeasured in ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (problems.length > 0) {
  console.error(`cases that could not run: ${problems.map((f) => `${f.suite} ${f.errors}`).join(', ')}`);
  process.exitCode = 1;
}
