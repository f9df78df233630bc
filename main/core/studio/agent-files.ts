import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { writeFileAtomic } from '../catalog/atomic-write.js';
import { withCatalogFileQueue } from '../catalog/catalog-edit.js';
import { normalizeAgentPath } from '../catalog/model-catalog.js';
import { RECORDINGS_DIR, recordingPathFor } from '../catalog/recording-path.js';
import { AGENTS_DIR, buildWorkspace, readCatalogFile, readCatalogTexts } from '../catalog/workspace.js';
import { FileReadError } from '../files/regular-file.js';
import { resolveInsideWorkspace } from '../tools/workspace-path.js';
import { ContractError } from './contract-error.js';
import { AGENT_TEMPLATES, type AgentTemplateName } from './agent-templates.js';
import { errorMessage } from '../../../common/error-message.js';
import type { AgentFileResult } from '../../../common/studio-schemas.js';
import { AGENT_FILE_NAME, checkFileName, fileNameKey as nameKey } from '../../../common/file-name.js';

/**
 * Agent files of a workspace: create (from a template), save as, rename and delete. Every write
 * is atomic (a temporary file renamed into place), every path stays inside the workspace
 * (symbolic links included), and every bad name is refused with a message that says what to
 * change. An agent's recording, `recordings/<name>.jsonl`, and its settings in promptforge.yaml
 * (`agents: { agents/<name>.lua: ... }`) follow its agent.
 *
 * @module
 */

/** `agents/<name>.lua` for an agent name. */
function agentPath(name: string): string {
  return `${AGENTS_DIR}/${name}.lua`;
}

/**
 * Checks a new agent name as a person typed it and returns it without a `.lua` ending. Throws a
 * ContractError `invalid-name` whose message names the problem and the fix (common/file-name.ts).
 */
function checkAgentName(typed: string): string {
  const checked = checkFileName(typed, AGENT_FILE_NAME);
  if ('problem' in checked) throw new ContractError('invalid-name', checked.problem);
  return checked.name;
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

// Agent file operations on one workspace run one at a time, so that a rename, a delete and a save
// cannot interleave their checks and their changes.
const operationQueues = new Map<string, Promise<unknown>>();

/**
 * Runs `work` after every agent file operation on the workspace at `root` that started before it
 * (create, save as, rename, delete, and whatever else is passed here, such as saving an agent's
 * text), and before any that starts later.
 */
export function inAgentFilesQueue<T>(root: string, work: () => Promise<T>): Promise<T> {
  const key = path.resolve(root);
  const next = (operationQueues.get(key) ?? Promise.resolve()).then(work, work);
  const settled = next.catch(() => undefined);
  operationQueues.set(key, settled);
  // The map does not keep a finished queue alive.
  void settled.then(() => {
    if (operationQueues.get(key) === settled) operationQueues.delete(key);
  });
  return next;
}

/** A change of promptforge.yaml, checked and ready to write. */
interface SettingsEdit {
  file: string;
  before: string;
  after: string;
}

/**
 * The edit of promptforge.yaml that moves an agent's entry under `agents:` from `from` to `to`,
 * or removes it when `to` is undefined, editing the YAML document so comments and everything else
 * survive. Undefined when there is nothing to change: no file, a file that cannot be read (nothing
 * in it is loaded either), or no entry for the agent. Throws a ContractError, and nothing may
 * change, when the settings cannot follow the agent: the file does not parse and mentions the
 * agent, `to` already has an entry (left from an earlier agent of that name), or the edited file
 * would have an error the file does not have now. Errors that are already there (another entry
 * naming an unknown model, say) do not stop the edit.
 */
async function settingsEdit(root: string, from: string, to: string | undefined): Promise<SettingsEdit | undefined> {
  const file = path.join(root, 'promptforge.yaml');
  let before: string;
  try {
    before = await readCatalogFile(file, 'promptforge.yaml');
  } catch (error) {
    if (error instanceof FileReadError) return undefined;
    throw error;
  }
  const document = parseDocument(before, { uniqueKeys: false });
  const action = to === undefined ? `delete ${from}` : `rename ${from}`;
  if (document.errors.length > 0) {
    const named = [from, to].find((agent) => agent !== undefined && before.includes(agent));
    if (named === undefined) return undefined;
    const error = document.errors[0]!;
    throw new ContractError(
      'catalog-invalid',
      `promptforge.yaml has a YAML error (${error.message.split('\n')[0]}) and names ${named}, so the agent's settings cannot be moved; fix promptforge.yaml first, then ${action} again`,
    );
  }
  const agents = document.get('agents', true);
  if (!isMap(agents)) return undefined;
  const keyOf = (key: unknown): string | undefined => {
    const value = isScalar(key) ? key.value : key;
    return typeof value === 'string' ? normalizeAgentPath(value, undefined) : undefined;
  };
  if (to !== undefined) {
    const stale = agents.items.find((pair) => keyOf(pair.key) === to);
    if (stale) {
      const written = isScalar(stale.key) ? String(stale.key.value) : to;
      throw new ContractError(
        'name-taken',
        `promptforge.yaml still has settings for ${to} (the entry "${written}" under "agents", left from an earlier agent of that name); remove that entry from promptforge.yaml, or pick another name`,
      );
    }
  }
  const moving = agents.items.filter((pair) => keyOf(pair.key) === from);
  if (moving.length === 0) return undefined;
  for (const pair of moving) {
    if (to === undefined) agents.items.splice(agents.items.indexOf(pair), 1);
    else if (isScalar(pair.key)) pair.key.value = to;
    else pair.key = document.createNode(to);
  }
  const after = document.toString();
  const added = await newErrors(root, before, after);
  if (added.length > 0) {
    const problem = added[0]!;
    throw new ContractError(
      'catalog-invalid',
      `the settings of ${from} in promptforge.yaml cannot follow it: the edited file would have an error at line ${problem.line} (${problem.message}); ${problem.fix} Then ${action} again`,
    );
  }
  return { file, before, after };
}

/** The errors promptforge.yaml has with the text `after` and not with `before`. */
async function newErrors(root: string, before: string, after: string) {
  const texts = await readCatalogTexts(root);
  const errors = (text: string) =>
    buildWorkspace(path.resolve(root), { ...texts, 'promptforge.yaml': text }).problems.filter(
      (problem) => problem.file === 'promptforge.yaml' && problem.severity === 'error',
    );
  const old = errors(before).map((problem) => problem.message);
  return errors(after).filter((problem) => {
    const index = old.indexOf(problem.message);
    if (index < 0) return true;
    old.splice(index, 1);
    return false;
  });
}

/** Creates `agents/<name>.lua` from a template. */
export async function createAgent(
  context: AgentFilesContext,
  typedName: string,
  template: AgentTemplateName = 'host-api',
): Promise<AgentFileResult> {
  const name = checkAgentName(typedName);
  const text = AGENT_TEMPLATES[template].replaceAll('{{name}}', name);
  return inAgentFilesQueue(context.root, () => writeNewAgent(context, name, text));
}

/** Writes `text` as a new agent `agents/<name>.lua` (Save as); nothing else changes. */
export async function saveAgentAs(
  context: AgentFilesContext,
  typedName: string,
  text: string,
): Promise<AgentFileResult> {
  const name = checkAgentName(typedName);
  return inAgentFilesQueue(context.root, () => writeNewAgent(context, name, text));
}

/**
 * Renames an agent, its recording and its settings in promptforge.yaml. Refused while the agent
 * runs, when the agent does not exist, when the new name is taken (by another agent in any case,
 * by a recording without its agent, or by a stale entry in promptforge.yaml), or when its settings
 * cannot follow it. Everything is checked before anything changes, and a change that still fails
 * half-way is undone, so a refused rename leaves every file as it was.
 */
export function renameAgent(context: AgentFilesContext, from: string, typedName: string): Promise<AgentFileResult> {
  return inAgentFilesQueue(context.root, () =>
    withCatalogFileQueue(context.root, 'promptforge.yaml', () => renameNow(context, from, typedName)),
  );
}

async function renameNow(context: AgentFilesContext, from: string, typedName: string): Promise<AgentFileResult> {
  // Check: every path resolved, every target free.
  const source = await existingAgent(context, from, 'rename');
  const name = checkAgentName(typedName);
  const target = agentPath(name);
  if (target === source.relative) return { path: target, recording: await existingRecording(context, target) };
  const agentsDir = await agentsFolder(context, false);
  const agentTo = path.join(agentsDir, `${name}.lua`);
  // A case-only rename on a file system that ignores case finds the agent itself at the target.
  if (!(await sameFile(source.absolute, agentTo))) await refuseTaken(context, name, source.relative);
  const recordings = (await recordingsFolder(context)) ?? path.join(context.root, RECORDINGS_DIR);
  const recordingFrom = recordingPathFor(source.relative);
  const recordingTo = recordingPathFor(target);
  const recordingFromFile = path.join(recordings, path.posix.basename(recordingFrom));
  const recordingToFile = path.join(recordings, path.posix.basename(recordingTo));
  const hasRecording = await exists(recordingFromFile);
  // Taken, whether or not this agent has a recording: a rename never adopts another's recording.
  if ((await exists(recordingToFile)) && !(await sameFile(recordingFromFile, recordingToFile)))
    throw new ContractError(
      'name-taken',
      `${recordingTo} already exists (a recording without its agent); pick another name, or delete or move that recording first`,
    );
  const settings = await settingsEdit(context.root, source.relative, target);

  // Act, undoing what was done when a step fails.
  await fs.rename(source.absolute, agentTo);
  try {
    if (hasRecording) await fs.rename(recordingFromFile, recordingToFile);
    try {
      if (settings) await writeFileAtomic(settings.file, settings.after);
    } catch (error) {
      if (hasRecording) await fs.rename(recordingToFile, recordingFromFile).catch(() => undefined);
      throw error;
    }
  } catch (error) {
    await fs.rename(agentTo, source.absolute).catch(() => undefined);
    throw error;
  }
  return { path: target, recording: hasRecording ? recordingTo : null };
}

/** What deleting an agent would delete, as the person is shown it before anything is. */
export interface AgentDeletion {
  /** The agent, `agents/NAME.lua`. */
  agent: string;
  /** Its recording, `recordings/NAME.jsonl`, when it has one. */
  recording: string | null;
  /** Whether promptforge.yaml holds settings of it (which go too). */
  settings: boolean;
}

/**
 * Deletes an agent, its recording and its settings in promptforge.yaml (its runs stay in
 * `runs/`). Refused while it runs; everything is checked before anything is deleted. `confirm`
 * is shown exactly what will go, with no other agent-file change in between, and nothing is
 * deleted unless it says yes.
 */
export function deleteAgent(
  context: AgentFilesContext,
  agent: string,
  confirm: (deletion: AgentDeletion) => Promise<boolean>,
): Promise<{ deleted: true; recording: string | null }> {
  return inAgentFilesQueue(context.root, () =>
    withCatalogFileQueue(context.root, 'promptforge.yaml', () => deleteNow(context, agent, confirm)),
  );
}

async function deleteNow(
  context: AgentFilesContext,
  agent: string,
  confirm: (deletion: AgentDeletion) => Promise<boolean>,
): Promise<{ deleted: true; recording: string | null }> {
  const source = await existingAgent(context, agent, 'delete');
  const recordings = await recordingsFolder(context);
  const recording = recordingPathFor(source.relative);
  const recordingFile = recordings && path.join(recordings, path.posix.basename(recording));
  const hasRecording = recordingFile !== null && (await exists(recordingFile));
  const settings = await settingsEdit(context.root, source.relative, undefined);
  const deletion = { agent: source.relative, recording: hasRecording ? recording : null, settings: !!settings };
  if (!(await confirm(deletion)))
    throw new ContractError(
      'cancelled',
      `Nothing was deleted: deleting ${source.relative} was cancelled in the confirmation dialog.`,
    );
  // The settings go first: they are the one change that can be undone.
  if (settings) await writeFileAtomic(settings.file, settings.after);
  try {
    await fs.rm(source.absolute);
  } catch (error) {
    if (settings) await writeFileAtomic(settings.file, settings.before).catch(() => undefined);
    throw error;
  }
  if (hasRecording) await fs.rm(recordingFile, { force: true });
  return { deleted: true, recording: hasRecording ? recording : null };
}

async function writeNewAgent(context: AgentFilesContext, name: string, text: string): Promise<AgentFileResult> {
  await refuseTaken(context, name);
  const dir = await agentsFolder(context, true);
  const relative = agentPath(name);
  await writeFileAtomic(path.join(dir, `${name}.lua`), text);
  return { path: relative, recording: await existingRecording(context, relative) };
}

/**
 * Refuses a name another agent has, compared without case or compatibility forms (macOS and Windows
 * ignore case; ｆｕｌｌwidth letters look the same), or that
 * a file in agents/ has. `renaming` is the agent being renamed, which does not count.
 */
async function refuseTaken(context: AgentFilesContext, name: string, renaming?: string): Promise<void> {
  const wanted = nameKey(agentPath(name));
  const clash =
    context.agents.find((agent) => agent !== renaming && nameKey(agent) === wanted) ??
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

/**
 * The real `recordings/` folder, inside the workspace, or null when there is none. Refused when it
 * leads outside the workspace: the recordings of the agents cannot be checked there.
 */
async function recordingsFolder(context: AgentFilesContext): Promise<string | null> {
  if (!(await exists(path.join(context.root, RECORDINGS_DIR)))) return null;
  const real = await resolveInsideWorkspace(context.root, RECORDINGS_DIR).catch((error: unknown) => {
    throw new ContractError(
      'outside-workspace',
      `${RECORDINGS_DIR}/: ${errorMessage(error)}; nothing was changed. Make ${RECORDINGS_DIR}/ a folder inside the workspace first`,
    );
  });
  return (await fs.stat(real)).isDirectory() ? real : null;
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
  // The list may be older than the disk (an operation queued behind this one renamed it).
  if (!(await fs.lstat(absolute).catch(() => undefined))?.isFile())
    throw new ContractError('not-found', `${normalized} no longer exists; refresh the explorer`);
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

/** Whether both paths name one file (a link not followed): the same device and inode. */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [first, second] = await Promise.all([fs.lstat(a).catch(() => undefined), fs.lstat(b).catch(() => undefined)]);
  return first !== undefined && second !== undefined && first.dev === second.dev && first.ino === second.ino;
}
