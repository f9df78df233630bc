import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The floor in package.json's `engines.node` (`>=MAJOR.MINOR.PATCH`), the one place it is written. */
export function engineFloor(enginesNode: string): [number, number, number] | null {
  const match = /^\s*>=\s*(\d+)\.(\d+)\.(\d+)\s*$/.exec(enginesNode);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/** Whether `version` (`v24.1.0` or `24.1.0`) is at least `floor`. */
function meetsFloor(version: string, floor: [number, number, number]): boolean {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i += 1) {
    const have = parts[i] ?? 0;
    if (have !== floor[i]) return have > floor[i]!;
  }
  return true;
}

/**
 * One line on stderr when this Node.js is older than package.json's floor: npm only warns about
 * engines, and an old Node fails later in ways that do not say why.
 */
export function warnIfNodeTooOld(projectRoot: string): void {
  const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
    engines?: { node?: string };
  };
  const floor = engineFloor(manifest.engines?.node ?? '');
  if (floor === null || meetsFloor(process.version, floor)) return;
  process.stderr.write(
    `warning: PromptForge needs Node.js ${floor.join('.')} or newer; this is ${process.version}. ` +
      'README.md, "Set up and run", says how to get Node 24.\n',
  );
}
