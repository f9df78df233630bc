// Whether this Node.js meets package.json's `engines.node` floor, and the one line that says it does not.
// Plain JavaScript: the `promptforge` bin (promptforge.mjs) runs it with no loader, and the
// project's scripts (npm start, npm test) import it too.
import { readFileSync } from 'node:fs';

/**
 * The floor in package.json's `engines.node` (`>=MAJOR.MINOR.PATCH`), the one place it is written.
 * @param {string} enginesNode
 * @returns {[number, number, number] | null}
 */
export function engineFloor(enginesNode) {
  const match = /^\s*>=\s*(\d+)\.(\d+)\.(\d+)\s*$/.exec(enginesNode);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/**
 * Whether `version` (`v24.1.0` or `24.1.0`) is at least `floor`.
 * @param {string} version
 * @param {[number, number, number]} floor
 */
function meetsFloor(version, floor) {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i += 1) {
    const have = parts[i] ?? 0;
    if (have !== floor[i]) return have > floor[i];
  }
  return true;
}

/**
 * One line on stderr when this Node.js is older than the floor of `packageJson` (a file URL or
 * path): npm only warns about engines, and an old Node fails later in ways that do not say why.
 * @param {string | URL} packageJson
 */
export function warnIfNodeTooOld(packageJson) {
  let enginesNode = '';
  try {
    enginesNode = JSON.parse(readFileSync(packageJson, 'utf8')).engines?.node ?? '';
  } catch {
    // No manifest beside it (a copy that lost it): nothing to compare with, nothing said.
  }
  const floor = engineFloor(enginesNode);
  if (floor === null || meetsFloor(process.version, floor)) return;
  process.stderr.write(
    `warning: PromptForge needs Node.js ${floor.join('.')} or newer; this is ${process.version}. ` +
      'README.md, "Set up and run", says how to get Node 24.\n',
  );
}
