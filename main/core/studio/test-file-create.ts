/**
 * "New test file…" of the Tests view: writes `tests/NAME.yaml` with a starter case for one agent,
 * the name checked again here (the page is not trusted), never over an existing file, never through
 * a symbolic link. Writing a file runs nothing, so it works in a restricted workspace too.
 */
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { agentNameOf } from '../../../common/agent-name.js';
import { errorMessage } from '../../../common/error-message.js';
import { checkFileName, fileNameKey, TEST_FILE_NAME } from '../../../common/file-name.js';
import { TESTS_DIR } from '../catalog/workspace.js';
import { platformOpenFlags } from '../files/regular-file.js';
import { isInside, openInsideWorkspace } from '../tools/workspace-path.js';
import { ContractError } from './contract-error.js';
import { resolveInWorkspace } from './workspace-paths.js';

/** A YAML scalar for `value`: as it is when it is plainly safe, else double-quoted (JSON's quoting is YAML's). */
function yamlScalar(value: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._/ -]*$/.test(value) && !value.endsWith(' ') ? value : JSON.stringify(value);
}

/**
 * A test file with one case for `agent`: a scripted model (offline, no key) whose one reply ends
 * the run, expected to end ok, and commented lines showing the checks most cases add.
 */
export function starterTestFile(agent: string): string {
  return `# Agent tests: each case runs one agent against a model, then checks what the run did.
# docs/testing.md describes every field. Run them from the Tests view, or: promptforge test
cases:
  - name: ${yamlScalar(`${agentNameOf(agent)} ends ok`)}
    agent: ${yamlScalar(agent)}
    model: # a scripted model: reply N answers model round N, offline
      replies:
        - content: Hello from the scripted model.
    approve: deny # what a call that asks for approval gets (auto, deny, or per tool)
    expect:
      status: ok
      # calls: [{ tool: echo, arguments: { text: hello } }]
      # final: { contains: Hello }
`;
}

/** Creating a file: only a new one (never an existing file, nor through a last link), written by us alone. */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (platformOpenFlags.O_NOFOLLOW ?? 0);

/**
 * Writes `tests/<name>.yaml` in the workspace at `root` with a starter case for `agent` (one of
 * `agents`; without it, the first). Refused with `invalid-name` (the rules of common/file-name.ts),
 * `name-taken` (a test file of that name, in any case or as .yml), `not-found` (no such agent, or
 * none), `outside-workspace` (tests/ leads outside through a link) or `not-a-folder`.
 */
export async function createTestFile(
  root: string,
  agents: readonly string[],
  typedName: string,
  agent?: string,
): Promise<{ file: string }> {
  const checked = checkFileName(typedName, TEST_FILE_NAME);
  if ('problem' in checked) throw new ContractError('invalid-name', checked.problem);
  const { name } = checked;
  const wanted = agent?.split('\\').join('/');
  if (wanted !== undefined && !agents.includes(wanted))
    throw new ContractError('not-found', `${wanted} is not an agent of this workspace; pick one of its agents/*.lua`);
  const subject = wanted ?? agents[0];
  if (subject === undefined)
    throw new ContractError(
      'not-found',
      'this workspace has no agent to test yet; make one first (New agent…), then a test file for it',
    );
  const relative = `${TESTS_DIR}/${name}.yaml`;
  // Through no link that leads outside: the folder, and the file's place in it.
  resolveInWorkspace(root, relative);
  const rootReal = await fs.realpath(root);
  try {
    await fs.mkdir(path.join(rootReal, TESTS_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new ContractError('not-a-folder', `cannot make ${TESTS_DIR}/: ${errorMessage(error)}`);
  }
  const folder = await testsFolder(rootReal);
  const key = fileNameKey(name);
  const clash = (await fs.readdir(folder)).find(
    (entry) => fileNameKey(entry.replace(/\.ya?ml$/i, '')) === key && /\.ya?ml$/i.test(entry),
  );
  if (clash !== undefined)
    throw new ContractError(
      'name-taken',
      `${TESTS_DIR}/${clash} already exists (its cases are named after the file); pick another name, or open that file`,
    );
  const target = path.join(folder, `${name}.yaml`);
  let handle;
  try {
    handle = await fs.open(target, CREATE_FLAGS, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new ContractError('name-taken', `${relative} already exists; pick another name, or open that file`);
    throw new ContractError('not-found', `cannot write ${relative}: ${errorMessage(error)}`);
  }
  try {
    // The folder may have been swapped for a link between the check and the open: what was made
    // outside is removed again, and nothing is written.
    if (process.platform === 'linux') {
      const opened = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
      if (opened === undefined || !isInside(rootReal, opened)) {
        await handle.close();
        handle = undefined;
        if (opened !== undefined) await fs.rm(opened, { force: true });
        throw new ContractError('outside-workspace', `${TESTS_DIR}/ changed while ${relative} was written; refused`);
      }
    }
    await handle.writeFile(starterTestFile(subject), 'utf8');
    await handle.sync();
  } finally {
    await handle?.close();
  }
  return { file: relative };
}

/** The real tests/ folder, checked inside the workspace once open. */
async function testsFolder(rootReal: string): Promise<string> {
  const stat = await fs.stat(path.join(rootReal, TESTS_DIR)).catch(() => undefined);
  if (stat !== undefined && !stat.isDirectory())
    throw new ContractError(
      'not-a-folder',
      `${TESTS_DIR} is not a folder; move that file away to keep test files in ${TESTS_DIR}/`,
    );
  let opened;
  try {
    opened = await openInsideWorkspace(rootReal, TESTS_DIR, 'folder');
  } catch (error) {
    throw new ContractError(
      'outside-workspace',
      `${TESTS_DIR}/ is not a folder inside the workspace (${errorMessage(error)}); make it a plain folder, then try again`,
    );
  }
  await opened.handle.close();
  return opened.real;
}
