import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** What a fresh checkout needs to build and start the studio. */
const SOURCES = ['package.json', 'electron.vite.config.ts', 'tsconfig.json', 'tsconfig.node.json', 'tsconfig.web.json'];
const SOURCE_FOLDERS = ['scripts', 'build', 'main', 'common', 'preload', 'renderer', 'schemas', 'examples'];
/** The electron package's own files (its binary, dist/, is what the tests control). */
const ELECTRON_FILES = ['package.json', 'install.js', 'index.js', 'cli.js', 'checksums.json'];

/**
 * A temporary copy of the project, as after `npm install` on a fresh machine: the sources are
 * copied, every package in node_modules is a symlink to this checkout's, except `electron`, which
 * is a copy of the package without its binary. Tests then change that copy freely, and this
 * checkout's node_modules is never touched.
 */
export function copyProject(): { root: string; electronDir: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'pf-project-'));
  for (const file of SOURCES) copyFileSync(path.join(repositoryRoot, file), path.join(root, file));
  for (const folder of SOURCE_FOLDERS) {
    cpSync(path.join(repositoryRoot, folder), path.join(root, folder), { recursive: true });
  }
  const modules = path.join(root, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(path.join(repositoryRoot, 'node_modules'))) {
    if (name === 'electron') continue;
    symlinkSync(path.join(repositoryRoot, 'node_modules', name), path.join(modules, name));
  }
  const electronDir = path.join(modules, 'electron');
  mkdirSync(electronDir);
  for (const file of ELECTRON_FILES) {
    copyFileSync(path.join(repositoryRoot, 'node_modules', 'electron', file), path.join(electronDir, file));
  }
  symlinkSync(
    path.join(repositoryRoot, 'node_modules', 'electron', 'node_modules'),
    path.join(electronDir, 'node_modules'),
  );
  return { root, electronDir };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; resolves its exit code and output (each bounded to 1 MiB). */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Finished> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout = (stdout + chunk).slice(-1024 * 1024)));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-1024 * 1024)));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The environment of a user who set no Electron variables. */
export function cleanEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(ELECTRON_|electron_|npm_config_electron|NPM_CONFIG_ELECTRON)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}
