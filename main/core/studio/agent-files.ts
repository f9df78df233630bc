import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { writeFileAtomic } from '../catalog/atomic-write.js';
import { writeCatalogFile } from '../catalog/catalog-edit.js';
import { AGENTS_DIR, readCatalogFile } from '../catalog/workspace.js';
import { resolveInsideWorkspace } from '../tools/workspace-path.js';
import { ContractError } from './contract-error.js';
import { AGENT_TEMPLATES, type AgentTemplateName } from './agent-templates.js';
import { errorMessage } from '../../../common/error-message.js';

/**
 * Agent files of a workspace: create (from a template), save as, rename and delete. Every write
 * is atomic (a temporary file renamed into place), every path stays inside the workspace
 * (symbolic links included), and every bad name is refused with a message that says what to
 * change. An agent's recording, `recordings/<name>.jsonl`, and its settings in promptforge.yaml
 * (`agents: { agents/<name>.lua: ... }`) follow its agent.
 *
 * @module
 */

/** The folder of recordings inside a workspace: `recordings/<agent name>.jsonl`. */
export const RECORDINGS_DIR = 'recordings';

/** Longest agent name, in UTF-8 bytes (far below every file system's 255, with room for temp names). */
export const MAX_AGENT_NAME_BYTES = 100;

/** Windows device names: a file called `con` or `con.lua` cannot be opened there. */
const RESERVED_NAME = /^(con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])$/i;

/** Characters Windows refuses in file names (the slashes have their own message). */
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;

// Control characters (C0, DEL and C1) have no place in a file name.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `agents/<name>.lua` for an agent name. */
export function agentPath(name: string): string {
  return `${AGENTS_DIR}/${name}.lua`;
}

/** `recordings/<name>.jsonl` for an agent path `agents/<name>.lua`. */
export function recordingPathFor(agent: string): string {
  return `${RECORDINGS_DIR}/${path.posix.basename(agent.replaceAll('\\', '/'), '.lua')}.jsonl`;
}

/**
 * Checks a new agent name as a person typed it and returns it without a `.lua` ending. Throws a
 * ContractError `invalid-name` whose message names the problem and the fix.
 */
export function checkAgentName(typed: string): string {
  const name = typed.toLowerCase().endsWith('.lua') ? typed.slice(0, -'.lua'.length) : typed;
  const shown = JSON.stringify(typed);
  const refuse = (problem: string, fix: string): never => {
    throw new ContractError('invalid-name', `the agent name ${shown} ${problem}; ${fix}`);
  };
  if (name.trim() === '') refuse('is empty', 'type a name such as my-agent');
  if (CONTROL.test(name)) refuse('contains a control character', 'use letters, digits, - or _');
  if (/[\\/]/.test(name))
    refuse('contains a slash or backslash', `agents live directly in ${AGENTS_DIR}/: use - or _ instead`);
  if (name === '.' || name === '..' || name.startsWith('.'))
    refuse('starts with a dot (a hidden file, or the folder itself)', 'start it with a letter or digit');
  if (/[. ]$/.test(name) || /^\s|\s$/.test(name))
    refuse('begins or ends with a space or ends with a dot', 'remove them (Windows cannot keep such a name)');
  if (WINDOWS_FORBIDDEN.test(name)) refuse('contains one of < > : " | ? *', 'use letters, digits, - or _ instead');
  if (RESERVED_NAME.test(name.split('.')[0]!))
    refuse('is a reserved device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9)', 'pick another name');
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > MAX_AGENT_NAME_BYTES)
    refuse(`is ${bytes} bytes long`, `keep it to ${MAX_AGENT_NAME_BYTES} bytes (UTF-8)`);
  return name;
}

/** What the agent operations need: the workspace and which agents are running now. */
export interface AgentFilesContext {
  /** Absolute path of the workspace folder. */
  root: string;
  /** Workspace-relative paths of the agents (`agents/*.lua`). */
  agents: readonly string[];
  /** Whether a run of this agent (workspace-relative path) is in progress. */
  isRunning: (agent: string) => boolean;
}

/** An agent file after an operation, and its recording when it has one. */
export interface AgentFileResult {
  path: string;
  recording: string | null;
}

/**
 * Moves (or, with `to` undefined, removes) an agent's entry under `agents:` in promptforge.yaml,
 * editing the YAML document so comments and everything else survive. Nothing happens when the
 * file or the entry does not exist; an edit the catalog check refuses leaves the file as it was.
 */
async function moveAgentSettings(root: string, from: string, to: string | undefined): Promise<void> {
  const file = path.join(root, 'promptforge.yaml');
  let text: string;
  try {
    text = await readCatalogFile(file, 'promptforge.yaml');
  } catch {
    return;
  }
  const document = parseDocument(text);
  const agents = document.get('agents', true);
  if (!isMap(agents)) return;
  const index = agents.items.findIndex((pair) => (isScalar(pair.key) ? pair.key.value : pair.key) === from);
  if (index < 0) return;
  const pair = agents.items[index]!;
  if (to === undefined) agents.items.splice(index, 1);
  else if (isScalar(pair.key)) pair.key.value = to;
  else pair.key = document.createNode(to);
  await writeCatalogFile(root, 'promptforge.yaml', document.toString());
}

/** Creates `agents/<name>.lua` from a template. */
export async function createAgent(
  context: AgentFilesContext,
  typedName: string,
  template: AgentTemplateName = 'host-api',
): Promise<AgentFileResult> {
  const name = checkAgentName(typedName);
  const text = AGENT_TEMPLATES[template].replaceAll('{{name}}', name);
  return writeNewAgent(context, name, text);
}

/** Writes `text` as a new agent `agents/<name>.lua` (Save as); nothing else changes. */
export async function saveAgentAs(
  context: AgentFilesContext,
  typedName: string,
  text: string,
): Promise<AgentFileResult> {
  return writeNewAgent(context, checkAgentName(typedName), text);
}

/**
 * Renames an agent and its recording. Refused while the agent runs, when the new name is taken
 * (by an agent or by an orphan recording), or when the agent does not exist.
 */
export async function renameAgent(
  context: AgentFilesContext,
  from: string,
  typedName: string,
): Promise<AgentFileResult> {
  const source = await existingAgent(context, from, 'rename');
  const name = checkAgentName(typedName);
  const target = agentPath(name);
  const caseOnly = target.toLowerCase() === source.relative.toLowerCase();
  if (target === source.relative) return { path: target, recording: await existingRecording(context, target) };
  if (!caseOnly) await refuseTaken(context, name);
  const agentsDir = await agentsFolder(context, false);
  const recordingFrom = await existingRecording(context, source.relative);
  const recordingTo = recordingPathFor(target);
  if (recordingFrom && !caseOnly && (await exists(path.join(context.root, recordingTo))))
    throw new ContractError(
      'name-taken',
      `${recordingTo} already exists (a recording without its agent); pick another name, or delete or move that recording first`,
    );
  await fs.rename(source.absolute, path.join(agentsDir, `${name}.lua`));
  if (recordingFrom) {
    const recordings = await recordingsFolder(context);
    await fs.rename(
      path.join(recordings, path.posix.basename(recordingFrom)),
      path.join(recordings, path.posix.basename(recordingTo)),
    );
  }
  await moveAgentSettings(context.root, source.relative, target);
  return { path: target, recording: recordingFrom ? recordingTo : null };
}

/** Deletes an agent and its recording (its runs stay in `runs/`). Refused while it runs. */
export async function deleteAgent(
  context: AgentFilesContext,
  agent: string,
): Promise<{ deleted: true; recording: string | null }> {
  const source = await existingAgent(context, agent, 'delete');
  const recording = await existingRecording(context, source.relative);
  await fs.rm(source.absolute);
  if (recording)
    await fs.rm(path.join(await recordingsFolder(context), path.posix.basename(recording)), { force: true });
  await moveAgentSettings(context.root, source.relative, undefined);
  return { deleted: true, recording };
}

async function writeNewAgent(context: AgentFilesContext, name: string, text: string): Promise<AgentFileResult> {
  await refuseTaken(context, name);
  const dir = await agentsFolder(context, true);
  const relative = agentPath(name);
  await writeFileAtomic(path.join(dir, `${name}.lua`), text);
  return { path: relative, recording: await existingRecording(context, relative) };
}

/** Refuses a name another agent has, compared without case (macOS and Windows ignore it). */
async function refuseTaken(context: AgentFilesContext, name: string): Promise<void> {
  const wanted = agentPath(name).toLowerCase();
  const clash =
    context.agents.find((agent) => agent.toLowerCase() === wanted) ??
    ((await exists(path.join(context.root, agentPath(name)))) ? agentPath(name) : undefined);
  if (clash)
    throw new ContractError('name-taken', `${clash} already exists; pick another name, or open that agent instead`);
}

/** The real `agents/` folder, inside the workspace; created when `create` is set. */
async function agentsFolder(context: AgentFilesContext, create: boolean): Promise<string> {
  const candidate = path.join(context.root, AGENTS_DIR);
  if (create) await fs.mkdir(candidate, { recursive: true });
  const real = await resolveInsideWorkspace(context.root, AGENTS_DIR).catch((error: unknown) => {
    throw new ContractError('outside-workspace', `${AGENTS_DIR}/: ${errorMessage(error)}`);
  });
  if (!(await fs.stat(real)).isDirectory())
    throw new ContractError('not-a-folder', `${AGENTS_DIR} is not a folder; move that file away to keep agents there`);
  return real;
}

/** The real `recordings/` folder, inside the workspace. */
async function recordingsFolder(context: AgentFilesContext): Promise<string> {
  return resolveInsideWorkspace(context.root, RECORDINGS_DIR).catch((error: unknown) => {
    throw new ContractError('outside-workspace', `${RECORDINGS_DIR}/: ${errorMessage(error)}`);
  });
}

/** An existing agent of the workspace that is not running, as its relative and real paths. */
async function existingAgent(
  context: AgentFilesContext,
  relative: string,
  action: 'rename' | 'delete',
): Promise<{ relative: string; absolute: string }> {
  const normalized = relative.replaceAll('\\', '/');
  if (!context.agents.includes(normalized))
    throw new ContractError(
      'not-found',
      `${relative} is not an agent of this workspace (agents are ${AGENTS_DIR}/*.lua); refresh the explorer`,
    );
  if (context.isRunning(normalized))
    throw new ContractError(
      'agent-running',
      `${normalized} is running; stop the run first (Stop, or Ctrl+Shift+.), then ${action} it`,
    );
  // The link itself, not its target: a symbolic link in agents/ is renamed or deleted as a link.
  const absolute = path.join(await agentsFolder(context, false), path.posix.basename(normalized));
  return { relative: normalized, absolute };
}

/** The agent's recording, workspace-relative, when that file exists. */
async function existingRecording(context: AgentFilesContext, agent: string): Promise<string | null> {
  const recording = recordingPathFor(agent);
  return (await exists(path.join(context.root, recording))) ? recording : null;
}

async function exists(file: string): Promise<boolean> {
  return (await fs.lstat(file).catch(() => undefined)) !== undefined;
}
