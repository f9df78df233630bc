/**
 * `npm start` / `npm run dev`: makes sure the Electron binary is there, then runs electron-vite.
 *
 *   tsx scripts/ensure-electron.ts [ELECTRON-VITE COMMAND AND ARGUMENTS]
 *
 * When the binary is missing it runs Electron's own installer (node_modules/electron/install.js)
 * once; when it is there this costs a few file reads. A corrupt node_modules/electron/path.txt is
 * repaired (or the binary downloaded again). When the download fails the script prints one
 * message saying what failed and what to do, and exits 1. The executable is handed to
 * electron-vite as ELECTRON_EXEC_PATH, so electron-vite never reads path.txt itself.
 * ELECTRON_OVERRIDE_DIST_PATH (Electron's variable: a folder holding the executable) and
 * ELECTRON_EXEC_PATH (electron-vite's: the executable) are honoured and never download anything.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  downloadFailureMessage,
  type ElectronFacts,
  type ElectronPlan,
  planElectron,
  platformExecutable,
} from './lib/electron-binary.js';
import { warnIfNodeTooOld } from '../main/cli/node-version.mjs';

const projectRoot = path.resolve(import.meta.dirname, '..');
const requireFromProject = createRequire(path.join(projectRoot, 'package.json'));
const MAX_CAPTURED_STDERR = 64 * 1024;

function isFile(filePath: string): boolean {
  try {
    return statSync(filePath).isFile();
  } catch {
    return false;
  }
}

function readPathTxt(pathFile: string): ElectronFacts['pathTxt'] {
  try {
    const stats = statSync(pathFile);
    if (!stats.isFile()) return { kind: 'unreadable', reason: 'not a file' };
    if (stats.size > 4096) return { kind: 'unreadable', reason: `${stats.size} bytes, not a path` };
    return { kind: 'text', text: readFileSync(pathFile, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', reason: code ?? String(error) };
  }
}

function readDistVersion(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

function gatherFacts(electronDir: string, env: NodeJS.ProcessEnv): ElectronFacts {
  const manifest = JSON.parse(readFileSync(path.join(electronDir, 'package.json'), 'utf8')) as { version: string };
  const executable = platformExecutable(process.platform) ?? 'electron';
  const execPath = env['ELECTRON_EXEC_PATH'];
  const distPath = env['ELECTRON_OVERRIDE_DIST_PATH'];
  return {
    platform: process.platform,
    packageVersion: manifest.version,
    pathTxt: readPathTxt(path.join(electronDir, 'path.txt')),
    distVersion: readDistVersion(path.join(electronDir, 'dist', 'version')),
    distExecutableExists: isFile(path.join(electronDir, 'dist', executable)),
    execPathOverride: execPath ? { path: path.resolve(execPath), exists: isFile(execPath) } : undefined,
    distPathOverride: distPath
      ? {
          folder: distPath,
          executable: path.resolve(distPath, executable),
          exists: isFile(path.resolve(distPath, executable)),
        }
      : undefined,
  };
}

function userCommand(): string {
  const event = process.env['npm_lifecycle_event'];
  if (event === 'start') return 'npm start';
  if (event) return `npm run ${event}`;
  return 'tsx scripts/ensure-electron.ts';
}

/** Runs Electron's installer with the download reporter; resolves its exit code and stderr. */
function runInstaller(electronDir: string): Promise<{ exitCode: number | null; stderr: string }> {
  const reporter = pathToFileURL(path.join(import.meta.dirname, 'lib', 'report-electron-download.mjs')).href;
  const child = spawn(process.execPath, ['--import', reporter, path.join(electronDir, 'install.js')], {
    stdio: ['ignore', 'inherit', 'pipe'],
    env: { ...process.env, ELECTRON_GET_NO_PROGRESS: '1' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-MAX_CAPTURED_STDERR);
  });
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ exitCode: null, stderr: `Error: ${error.message}` }));
    child.on('close', (exitCode) => resolve({ exitCode, stderr }));
  });
}

function absoluteExecutable(electronDir: string, plan: Extract<ElectronPlan, { kind: 'ready' }>): string {
  return plan.source === 'node_modules' ? path.join(electronDir, 'dist', plan.executable) : plan.executable;
}

/** Settles the executable to launch; prints one message and exits 1 when there is none. */
async function ensureElectron(electronDir: string, command: string): Promise<string> {
  const pathFile = path.join(electronDir, 'path.txt');
  const facts = gatherFacts(electronDir, process.env);
  const plan = planElectron(facts);
  if (plan.kind === 'ready') return absoluteExecutable(electronDir, plan);
  if (plan.kind === 'error') fail(`${command}: ${plan.message}`);
  if (plan.kind === 'repair-path-txt') {
    rmSync(pathFile, { recursive: true, force: true });
    writeFileSync(pathFile, plan.expected);
    process.stdout.write(
      `Repaired node_modules/electron/path.txt: it held ${plan.found}; the Electron binary is dist/${plan.expected}.\n`,
    );
    return path.join(electronDir, 'dist', plan.executable);
  }
  // The installer writes path.txt with writeFile, which cannot replace a folder of that name.
  if (existsSync(pathFile) && !isFile(pathFile)) rmSync(pathFile, { recursive: true, force: true });
  process.stdout.write(`Electron ${facts.packageVersion}: ${plan.reason}. Downloading it with Electron's installer.\n`);
  const { exitCode, stderr } = await runInstaller(electronDir);
  const after = planElectron(gatherFacts(electronDir, process.env));
  if (after.kind === 'ready') return absoluteExecutable(electronDir, after);
  if (exitCode !== 0) {
    fail(
      downloadFailureMessage({
        version: facts.packageVersion,
        platform: process.platform,
        reason: plan.reason,
        exitCode,
        stderr,
        command,
      }),
    );
  }
  fail(
    `${command}: Electron's installer finished, but the binary is still not usable ` +
      `(${after.kind === 'install' ? after.reason : after.kind}). Delete node_modules/electron and run npm install again.`,
  );
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** An installed package's folder, or one message saying to run npm install. */
function installedPackage(name: string, command: string): string {
  try {
    return path.dirname(requireFromProject.resolve(`${name}/package.json`));
  } catch {
    fail(`${command}: the ${name} package is not installed; run \`npm install\` first.`);
  }
}

async function main(args: string[]): Promise<void> {
  warnIfNodeTooOld(path.join(projectRoot, 'package.json'));
  const command = userCommand();
  const executable = await ensureElectron(installedPackage('electron', command), command);
  if (args.length === 0) {
    process.stdout.write(`Electron is ready: ${executable}\n`);
    return;
  }
  const electronVite = path.join(installedPackage('electron-vite', command), 'bin', 'electron-vite.js');
  const child = spawn(process.execPath, [electronVite, ...args], {
    stdio: 'inherit',
    env: { ...process.env, ELECTRON_EXEC_PATH: executable },
  });
  // Ctrl-C reaches electron-vite through the terminal; this process waits for it to finish.
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', forward('SIGTERM'));
  child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

await main(process.argv.slice(2));
