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
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AGENTDOJO_EXAMPLES, attacksFile, SUITES, userTasksFile } from './agentdojo-cases.js';

const CLI = path.resolve(import.meta.dirname, '../main/cli/promptforge.mjs');

interface CaseReport {
  file: string;
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
}

function approvalsIn(transcript: string | undefined): number {
  if (!transcript) return 0;
  return readFileSync(transcript, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"approval-pending"')).length;
}

const failed = (report: CaseReport, prefix: string) =>
  report.failures.some((failure) => failure.field.startsWith(`expect.check ${prefix}`));

/** Runs both suites once under `approve` and returns the figures per suite. */
async function measure(approve: 'deny' | 'auto'): Promise<SuiteFigures[]> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'agentdojo-'));
  try {
    cpSync(AGENTDOJO_EXAMPLES, workspace, { recursive: true });
    const folders = Object.keys(SUITES);
    const files = folders.flatMap((folder) => [userTasksFile(folder), attacksFile(folder)]);
    for (const file of files) {
      const target = path.join(workspace, file);
      const text = readFileSync(target, 'utf8');
      // The generated files set the policy once, in their defaults.
      if (!text.includes('\n  approve: deny\n')) throw new Error(`${file}: no "approve: deny" in its defaults`);
      writeFileSync(target, text.replace('\n  approve: deny\n', `\n  approve: ${approve}\n`));
    }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, 'test', ...folders.map((folder) => path.join(workspace, folder, 'tests')), '--json'],
      { cwd: workspace, maxBuffer: 256 << 20 },
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
      };
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}% (${part}/${whole})`;

function rows(label: string, figures: SuiteFigures[]): string[] {
  return figures.map(
    (f) =>
      `| ${f.suite} | ${label} | ${percent(f.benignUtility, f.userTasks)} | ${percent(f.utilityUnderAttack, f.pairs)} | ${percent(f.attacksSucceeded, f.pairs)} | ${(f.approvalsAsked / f.userTasks).toFixed(2)} |`,
  );
}

const started = performance.now();
const denied = await measure('deny');
const approved = await measure('auto');
const problems = [...denied, ...approved].filter((f) => f.errors > 0);
console.log(
  '| Suite | Calls that ask | Benign utility | Utility under attack | Attack success rate | Approvals asked per benign task |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const line of [
  ...rows('denied (`--approve deny`, nobody there)', denied),
  ...rows('all approved (reference)', approved),
])
  console.log(line);
console.log(`\nmeasured in ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (problems.length > 0) {
  console.error(`cases that could not run: ${problems.map((f) => `${f.suite} ${f.errors}`).join(', ')}`);
  process.exitCode = 1;
}
