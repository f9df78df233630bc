/**
 * The approval rules file in the user's config folder: read (refusing one that is not the person's)
 * and edited safely by the studio and the CLI at once (a lock, a re-read under it, an optional
 * compare-and-swap on the revision the editor showed, and an atomic write).
 */
import { createHash } from 'node:crypto';
import { constants as fsConstants, promises as fs, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMap, isSeq, type Document } from 'yaml';
import { RULES_FILE_NAME, type Confirmation, type Rule, type RulesFile } from '../../../common/approval-rules.js';
import { errorMessage } from '../../../common/error-message.js';
import { writeFileAtomic } from '../catalog/atomic-write.js';
import { CATALOG_FILES } from '../catalog/catalog-files.js';
import { isInside } from '../tools/workspace-path.js';
import { checkPrivate, ensurePrivateFolder, isPrivateFolder } from '../trust/config-dir.js';
import { acquireLock, ConfigFileError } from '../trust/config-file.js';
import {
  addRuleTo,
  editableDocument,
  emptyRules,
  formatRulesProblem,
  parseRulesText,
  replaceRuleIn,
  ruleIndex,
  type RulesProblem,
} from './rules-file.js';
import { platformOpenFlags } from '../files/regular-file.js';

/** Largest rules file read. */
const MAX_RULES_BYTES = 4 << 20;

/** Names a workspace might use to plant rules; any found is ignored with a warning. */
const WORKSPACE_RULE_FILE_NAMES = [
  RULES_FILE_NAME,
  'approval-rules.yml',
  'approval-rules.json',
  '.promptforge/approval-rules.yaml',
  '.promptforge/approval-rules.yml',
  '.promptforge/approval-rules.json',
  '.promptforge/rules.yaml',
  '.promptforge/rules.json',
];

/**
 * The rules as read now. `state`:
 * - `ok`: the file's rules apply (`missing`: there is no file; no rule applies, nothing else changes);
 * - `broken`: the file is malformed or from a newer version: no rule applies and every call asks;
 * - `ignored`: the file is not the person's (another user could write it, or it lies inside the
 *   workspace): no rule applies, with a warning.
 */
export interface RulesSnapshot {
  state: 'ok' | 'missing' | 'broken' | 'ignored';
  file: string;
  rules: RulesFile;
  problems: RulesProblem[];
  /** Sentences for stderr or the studio: ignored files, planted rule files. */
  warnings: string[];
  /** The sha256 of the file's text ('' when missing): pass it to an edit to refuse a lost update. */
  revision: string;
}

/** The file changed since the editor read it: nothing was written. */
export class RulesConflictError extends Error {
  constructor(readonly current: RulesSnapshot) {
    super(
      `${current.file} changed since it was read (another studio or CLI edited it); nothing was written. Read it again and redo the change`,
    );
    this.name = 'RulesConflictError';
  }
}

/** The rules of the person, kept in `configDir`. */
export class RuleStore {
  readonly file: string;

  constructor(readonly configDir: string) {
    this.file = path.join(configDir, RULES_FILE_NAME);
  }

  /**
   * The rules that apply for a run in `workspaceRoot` (any path to it): refused when the config
   * folder or the file resolves inside that workspace, with a warning naming any rules file the
   * workspace itself holds.
   */
  async load(workspaceRoot?: string): Promise<RulesSnapshot> {
    const warnings = workspaceRoot ? plantedRuleFiles(workspaceRoot) : [];
    const read = await this.readText();
    const base = { file: this.file, warnings: [...warnings, ...read.warnings] };
    if (read.state === 'ignored')
      return { ...base, state: 'ignored', rules: emptyRules(), problems: [], revision: read.revision };
    if (workspaceRoot && !isHomeWithoutCatalog(workspaceRoot) && this.insideWorkspace(workspaceRoot)) {
      base.warnings.push(
        `${this.file} is inside the workspace ${workspaceRoot}, so the workspace could have written it: its rules are ignored. Keep your config folder outside every workspace (unset or change PROMPTFORGE_CONFIG_DIR)`,
      );
      return { ...base, state: 'ignored', rules: emptyRules(), problems: [], revision: read.revision };
    }
    if (read.text === undefined)
      return {
        ...base,
        state: read.problem ? 'broken' : 'missing',
        rules: emptyRules(),
        problems: read.problem ? [{ message: read.problem }] : [],
        revision: '',
      };
    const parsed = parseRulesText(read.text);
    if (!parsed.ok)
      return { ...base, state: 'broken', rules: emptyRules(), problems: parsed.problems, revision: read.revision };
    return { ...base, state: 'ok', rules: parsed.file, problems: [], revision: read.revision };
  }

  /** The file's problems as lines, each naming the file, the line and the field. */
  describeProblems(snapshot: RulesSnapshot): string[] {
    return snapshot.problems.map((problem) => formatRulesProblem(snapshot.file, problem));
  }

  /**
   * Edits the file under its lock: reads it again, refuses a broken or foreign one, and refuses
   * the edit (RulesConflictError) when `expectedRevision` is given and the file changed since. The
   * new text is checked before it is written atomically. Resolves with the new snapshot.
   */
  async edit(
    change: (document: Document, current: RulesFile) => void,
    expectedRevision?: string,
  ): Promise<RulesSnapshot> {
    ensurePrivateFolder(this.configDir);
    const release = await acquireLock(`${this.file}.lock`);
    try {
      const read = await this.readText();
      if (read.state === 'ignored') throw new ConfigFileError(read.warnings.join('; '));
      if (read.problem) throw new ConfigFileError(`${this.file}: ${read.problem}`);
      if (expectedRevision !== undefined && expectedRevision !== read.revision)
        throw new RulesConflictError(await this.load());
      let current: RulesFile = emptyRules();
      if (read.text !== undefined) {
        const parsed = parseRulesText(read.text);
        if (!parsed.ok)
          throw new ConfigFileError(
            `${parsed.problems.map((problem) => formatRulesProblem(this.file, problem)).join('\n')}\nfix the file before changing it (nothing was written)`,
          );
        current = parsed.file;
      }
      const document = editableDocument(read.text);
      change(document, current);
      const text = document.toString({ lineWidth: 0 });
      const check = parseRulesText(text);
      if (!check.ok)
        throw new ConfigFileError(
          `the change would make the file invalid: ${check.problems.map((problem) => formatRulesProblem(this.file, problem)).join('; ')}`,
        );
      await writeFileAtomic(this.file, text);
      await fs.chmod(this.file, 0o600).catch(() => undefined);
      return {
        state: 'ok',
        file: this.file,
        rules: check.file,
        problems: [],
        warnings: [],
        revision: sha256(text),
      };
    } finally {
      await release();
    }
  }

  /** Adds a rule (its id must be new). */
  add(rule: Rule, expectedRevision?: string): Promise<RulesSnapshot> {
    return this.edit((document, current) => {
      if ((current.rules ?? []).some((existing) => existing.id === rule.id))
        throw new ConfigFileError(`a rule "${rule.id}" already exists; choose another id, or remove that one first`);
      addRuleTo(document, rule);
    }, expectedRevision);
  }

  /**
   * Puts `rule` in place of rule `id` (same place in the file, so the order among rules of its
   * kind stays); a new id must be free.
   */
  replace(id: string, rule: Rule, expectedRevision?: string): Promise<RulesSnapshot> {
    return this.edit((document, current) => {
      if (rule.id !== id && (current.rules ?? []).some((existing) => existing.id === rule.id))
        throw new ConfigFileError(`a rule "${rule.id}" already exists; choose another id`);
      replaceRuleIn(document, this.indexOf(document, id), rule);
    }, expectedRevision);
  }

  /** Removes rule `id`; throws when there is none. */
  remove(id: string, expectedRevision?: string): Promise<RulesSnapshot> {
    return this.edit((document) => {
      const index = this.indexOf(document, id);
      document.deleteIn(['rules', index]);
    }, expectedRevision);
  }

  /** Turns rule `id` on or off. */
  setEnabled(id: string, enabled: boolean, expectedRevision?: string): Promise<RulesSnapshot> {
    return this.edit((document) => {
      const index = this.indexOf(document, id);
      if (enabled) document.deleteIn(['rules', index, 'enabled']);
      else document.setIn(['rules', index, 'enabled'], false);
    }, expectedRevision);
  }

  /**
   * Records that a person confirmed rule `id` on a tool definition (its digest): the rule then
   * matches calls under it without asking. Nothing happens when it is already recorded or the rule
   * is gone.
   */
  async confirm(id: string, confirmation: Confirmation): Promise<void> {
    await this.edit((document, current) => {
      const rule = (current.rules ?? []).find((candidate) => candidate.id === id);
      if (!rule || (rule.confirmed ?? []).some((known) => known.digest === confirmation.digest)) return;
      const index = this.indexOf(document, id);
      const list = document.getIn(['rules', index, 'confirmed'], true);
      if (isSeq(list)) document.addIn(['rules', index, 'confirmed'], document.createNode(confirmation));
      else document.setIn(['rules', index, 'confirmed'], document.createNode([confirmation]));
    });
  }

  private indexOf(document: Document, id: string): number {
    const index = ruleIndex(document, id);
    if (index < 0)
      throw new ConfigFileError(`there is no rule "${id}" in ${this.file}; \`promptforge rules list\` shows the ids`);
    const rules = document.get('rules', true);
    if (!isSeq(rules) || !isMap(rules.items[index])) throw new ConfigFileError(`rule "${id}" is not a mapping`);
    return index;
  }

  private insideWorkspace(workspaceRoot: string): boolean {
    let root: string;
    try {
      root = realpathSync.native(workspaceRoot);
    } catch {
      return false;
    }
    for (const candidate of [this.configDir, this.file]) {
      let real: string;
      try {
        real = realpathSync.native(candidate);
      } catch {
        real = path.resolve(candidate);
      }
      if (isInside(root, real) || isInside(root, path.resolve(candidate))) return true;
    }
    return false;
  }

  private async readText(): Promise<{
    state: 'ok' | 'ignored';
    text?: string;
    problem?: string;
    warnings: string[];
    revision: string;
  }> {
    if (!isPrivateFolder(this.configDir))
      return {
        state: 'ignored',
        warnings: [
          `${this.configDir} can be written by another user, so its approval rules are not yours and are ignored`,
        ],
        revision: '',
      };
    let handle: fs.FileHandle;
    try {
      // Never through a final symbolic link: a link could lead into a workspace.
      handle = await fs.open(this.file, fsConstantsNoFollow());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { state: 'ok', warnings: [], revision: '' };
      if (code === 'ELOOP')
        return {
          state: 'ignored',
          warnings: [
            `${this.file} is a symbolic link; approval rules are read only from a plain file of your own, so it is ignored`,
          ],
          revision: '',
        };
      return { state: 'ok', problem: `cannot read (${errorMessage(error)})`, warnings: [], revision: '' };
    }
    try {
      const stat = await handle.stat();
      try {
        checkPrivate(this.file, stat);
      } catch (error) {
        return { state: 'ignored', warnings: [`${errorMessage(error)}; its approval rules are ignored`], revision: '' };
      }
      if (!stat.isFile()) return { state: 'ok', problem: 'is not a file', warnings: [], revision: '' };
      if (stat.size > MAX_RULES_BYTES)
        return {
          state: 'ok',
          problem: `is over ${MAX_RULES_BYTES} bytes; it is not a rules file`,
          warnings: [],
          revision: '',
        };
      const text = await handle.readFile('utf8');
      return { state: 'ok', text, warnings: [], revision: sha256(text) };
    } finally {
      await handle.close();
    }
  }
}

function fsConstantsNoFollow(): number {
  // O_RDONLY | O_NOFOLLOW where the platform has it.
  return fsConstants.O_RDONLY | (platformOpenFlags.O_NOFOLLOW ?? 0);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Warnings for rules files the workspace itself holds (they never apply). */
function plantedRuleFiles(workspaceRoot: string): string[] {
  return WORKSPACE_RULE_FILE_NAMES.filter(
    (name) => statSync(path.join(workspaceRoot, name), { throwIfNoEntry: false }) !== undefined,
  ).map(
    (name) =>
      `${path.join(workspaceRoot, name)} is ignored: approval rules count only in your config folder, where a workspace cannot write them (promptforge rules add)`,
  );
}

/**
 * Whether `folder` is the person's home folder (or above it) and no workspace: a script run from
 * there with no catalog. The default config folder is below it, and is the person's own, not a
 * clone's.
 */
function isHomeWithoutCatalog(folder: string): boolean {
  let home: string;
  let real: string;
  try {
    home = realpathSync.native(os.homedir());
    real = realpathSync.native(folder);
  } catch {
    return false;
  }
  if (!isInside(real, home)) return false;
  return !CATALOG_FILES.some((file) => statSync(path.join(real, file), { throwIfNoEntry: false })?.isFile() === true);
}
