/**
 * The open workspace's files as the studio edits them: agent scripts (create, save, save as,
 * rename, delete), catalogs, the file tree's listing and viewer, and each agent's model choice.
 * Every change is followed by the workspace being read and judged again (the host's refresh).
 */
import path from 'node:path';
import type {
  AgentFileResult,
  AgentTemplate,
  CatalogFile,
  CatalogProblemInfo,
  FileView,
  WorkspaceFiles,
} from '../../../common/studio-schemas.js';
import { writeFileAtomic } from '../catalog/atomic-write.js';
import { writeCatalogFile } from '../catalog/catalog-edit.js';
import { AGENTS_DIR, buildWorkspace, readCatalogTexts, type Workspace } from '../catalog/workspace.js';
import {
  createAgent,
  deleteAgent,
  type AgentDeletion,
  inAgentFilesQueue,
  renameAgent,
  saveAgentAs,
  type AgentFilesContext,
} from './agent-files.js';
import { ContractError } from './contract-error.js';
import type { StudioModelChoices } from './model-choices.js';
import type { PersonDialogs } from './person-dialogs.js';
import type { PersonPress } from './person-input.js';
import type { PersonQuestion } from './studio-trust.js';
import { listWorkspaceFiles, readWorkspaceText, viewWorkspaceFile } from './workspace-files.js';

/** The files `file:write` saves: agent scripts, `agents/NAME.lua`. */
const AGENT_SCRIPT = new RegExp(`^${AGENTS_DIR}/[^/\\\\]+\\.lua$`);

/** Largest workspace file the studio opens in an editor. */
const MAX_WORKSPACE_FILE_BYTES = 16 << 20;

/** What the files need from the studio service. */
export interface StudioFilesHost {
  requireWorkspace: () => Workspace;
  /** A workspace-relative path resolved inside the open workspace. */
  resolve: (relative: string) => string;
  /** Reads the workspace again after a change, judges it, and tells the page. */
  refresh: () => Promise<void>;
  /** Tells the page the workspace's state again, if `ws` is still the open one. */
  describeAgain: (ws: Workspace) => void;
  /** Whether a run of this agent is in progress. */
  isRunning: (agent: string) => boolean;
  models: StudioModelChoices;
  dialogs: PersonDialogs;
}

export class StudioFiles {
  constructor(private readonly host: StudioFilesHost) {}

  async readFile(relative: string): Promise<{ text: string }> {
    return { text: await readWorkspaceText(this.host.requireWorkspace().root, relative, MAX_WORKSPACE_FILE_BYTES) };
  }

  async writeScript(relative: string, text: string): Promise<{ saved: true }> {
    // Only an agent: a .lua file elsewhere may be one a trusted command loads, which its trust
    // does not cover, so the page must not write it.
    if (!AGENT_SCRIPT.test(relative))
      throw new ContractError(
        'not-a-script',
        `${relative}: only agent scripts (${AGENTS_DIR}/NAME.lua) are saved here; catalogs go through catalog:write`,
      );
    const ws = this.host.requireWorkspace();
    // In the same queue as create, save as, rename and delete: a save sent while the agent is being
    // renamed or deleted runs after that, never half-way through it.
    await inAgentFilesQueue(ws.root, () => writeFileAtomic(this.host.resolve(relative), text));
    await this.host.refresh();
    return { saved: true };
  }

  async checkCatalog(file: CatalogFile, text: string): Promise<{ problems: CatalogProblemInfo[] }> {
    const ws = this.host.requireWorkspace();
    const texts = await readCatalogTexts(ws.root);
    texts[file] = text;
    return { problems: buildWorkspace(ws.root, texts).problems.filter((p) => p.file === file) };
  }

  async writeCatalog(file: CatalogFile, text: string): Promise<{ saved: boolean; problems: CatalogProblemInfo[] }> {
    const ws = this.host.requireWorkspace();
    const result = await writeCatalogFile(ws.root, file, text);
    if (result.ok) await this.host.refresh();
    return { saved: result.ok, problems: result.problems };
  }

  /** Creates `agents/<name>.lua` from a template. */
  async createAgent(name: string, template?: AgentTemplate): Promise<AgentFileResult> {
    return this.afterFileChange(createAgent(this.agentFiles(), name, template));
  }

  /** Writes the editor's text as a new agent. */
  async saveAgentAs(name: string, text: string): Promise<AgentFileResult> {
    return this.afterFileChange(saveAgentAs(this.agentFiles(), name, text));
  }

  /** Renames an agent and its recording; refused while it runs. Its model choice follows it. */
  async renameAgent(agent: string, name: string): Promise<AgentFileResult> {
    const root = this.host.requireWorkspace().root;
    const result = await renameAgent(this.agentFiles(), agent, name);
    await this.host.models.agentMoved(root, agent, result.path);
    await this.host.refresh();
    return result;
  }

  /** The workspace's files for the file tree and quick open (bounded). */
  listFiles(): Promise<WorkspaceFiles> {
    return listWorkspaceFiles(this.host.requireWorkspace().root);
  }

  /** One file as the viewer shows it, or why it is not shown. */
  viewFile(relative: string): Promise<FileView> {
    return viewWorkspaceFile(this.host.requireWorkspace().root, relative);
  }

  /** Chooses the model of an agent's live runs (kept in the config folder); see `model:choose`. */
  async chooseModel(agent: string, model: string | null): Promise<{ chosen: string | null }> {
    const ws = this.host.requireWorkspace();
    const result = await this.host.models.choose(ws, agent, model);
    this.host.describeAgain(ws);
    return result;
  }

  /** Writes a model as the agent's default in promptforge.yaml; see `model:make-default`. */
  async makeModelDefault(agent: string, model: string): Promise<{ saved: true }> {
    const result = await this.host.models.makeDefault(this.host.requireWorkspace(), agent, model);
    await this.host.refresh();
    return result;
  }

  /**
   * Deletes an agent and its recording; refused while it runs, and done only when the person says
   * yes in main's dialog, which names exactly what goes. Its model choice is forgotten.
   */
  async deleteAgent(agent: string, press: PersonPress): Promise<{ deleted: true; recording: string | null }> {
    const root = this.host.requireWorkspace().root;
    const result = await deleteAgent(this.agentFiles(), agent, (deletion) =>
      this.host.dialogs.confirm(press, deleteQuestion(root, deletion)),
    );
    await this.host.models.agentMoved(root, agent, null);
    await this.host.refresh();
    return result;
  }

  private agentFiles(): AgentFilesContext {
    const ws = this.host.requireWorkspace();
    return {
      root: ws.root,
      agents: ws.agents,
      isRunning: (agent) => this.host.isRunning(agent),
    };
  }

  private async afterFileChange<T>(change: Promise<T>): Promise<T> {
    const result = await change;
    await this.host.refresh();
    return result;
  }
}

/** What the person reads before an agent is deleted: exactly the files that go, and what stays. */
function deleteQuestion(root: string, deletion: AgentDeletion): PersonQuestion {
  const name = path.posix.basename(deletion.agent, '.lua');
  return {
    title: `Delete the agent ${name}?`,
    message: `Delete ${deletion.agent}${deletion.recording ? ` and its recording ${deletion.recording}` : ''} from the workspace ${root}?`,
    detail: [
      `Deleted for good (not moved to the trash): ${deletion.agent}${deletion.recording ? `, ${deletion.recording}` : ''}.`,
      ...(deletion.settings ? ['Its settings in promptforge.yaml are removed.'] : []),
      'Its past runs stay in History (runs/).',
      'If you did not just ask the studio to delete it, choose Cancel.',
    ].join('\n'),
    confirm: 'Delete',
  };
}
