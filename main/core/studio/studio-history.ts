/** The studio's run history: a run's transcript by id, read a window at a time, compared, exported. */
import path from 'node:path';
import { existsSync } from 'node:fs';
import type { RunComparison, TranscriptPage } from '../../../common/studio-schemas.js';
import { errorMessage } from '../../../common/error-message.js';
import { RUNS_DIR } from '../catalog/workspace.js';
import { copyRegularFile, FileReadError } from '../files/regular-file.js';
import { TranscriptError } from '../transcript/transcript-reader.js';
import { readTranscriptPage, TranscriptGoneError } from '../transcript/transcript-pages.js';
import { compareTranscripts, comparisonHeader } from '../transcript/run-history.js';
import { ContractError } from './contract-error.js';
import type { PersonDialogs } from './person-dialogs.js';
import type { PersonPress } from './person-input.js';

/** Most test runs whose transcripts the studio keeps track of (the oldest are forgotten first). */
const MAX_TEST_RUNS = 100_000;

export class StudioHistory {
  /**
   * The transcripts of test cases the studio ran (under `runs/tests/`), by run id: opened, compared,
   * exported and forked by their run id like any run, so the page never names a path.
   */
  private readonly testRuns = new Map<string, string>();

  /**
   * `resolve` turns a workspace-relative path into one inside the open workspace (refusing one
   * that is not); `host.dialogs` shows main's save dialog.
   */
  constructor(
    private readonly resolve: (relative: string) => string,
    private readonly host: {
      /** Main's own dialogs (the save dialog), each paid for by the person's press. */
      dialogs: PersonDialogs;
      /** The open workspace's folder, or null. */
      workspaceRoot: () => string | null;
    },
  ) {}

  /** A test case's run, recorded by the studio at `file` (under the workspace's `runs/tests/`). */
  addTestRun(runId: string, file: string): void {
    this.testRuns.delete(runId);
    this.testRuns.set(runId, file);
    if (this.testRuns.size > MAX_TEST_RUNS) this.testRuns.delete(this.testRuns.keys().next().value!);
  }

  /**
   * A test case's run recorded in an earlier session, named by a report.json (a file of the
   * workspace, so untrusted): taken only when `runId` names no other run (one in History, or
   * another test run), so a crafted report can never make a run id open another transcript.
   */
  adoptTestRun(runId: string, file: string): boolean {
    if (!/^[A-Za-z0-9._-]{1,200}$/.test(runId)) return false;
    const known = this.testRuns.get(runId);
    if (known !== undefined) return known === file;
    const root = this.host.workspaceRoot();
    if (root === null || existsSync(path.join(root, RUNS_DIR, `${runId}.jsonl`))) return false;
    this.addTestRun(runId, file);
    return true;
  }

  /** Another workspace opened: its test runs are not these. */
  forgetTestRuns(): void {
    this.testRuns.clear();
  }

  /**
   * Run `runId`'s transcript file, and its name as messages show it: `runs/<runId>.jsonl`, or for a
   * test case the studio ran, where it recorded it under `runs/tests/`. `run-not-found` when there
   * is none.
   */
  transcript(runId: string): { file: string; shown: string } {
    if (!/^[A-Za-z0-9._-]+$/.test(runId)) throw new ContractError('run-not-found', `no run "${runId}"`);
    const gone = (where: string) =>
      new ContractError(
        'run-not-found',
        `no transcript for run "${runId}" in ${where}: it was never recorded here, or it was deleted or moved`,
      );
    const recorded = this.testRuns.get(runId);
    if (recorded !== undefined) {
      // Checked again on every use: inside this workspace's runs/tests/, through no link leading out.
      const root = this.host.workspaceRoot();
      const relative = root === null ? '' : path.relative(root, recorded);
      const segments = relative.split(path.sep);
      if (segments[0] !== RUNS_DIR || segments[1] !== 'tests' || segments.includes('..') || path.isAbsolute(relative))
        throw gone(`${RUNS_DIR}/tests/`);
      const file = this.resolve(relative);
      if (!existsSync(file)) throw gone(`${RUNS_DIR}/tests/`);
      return { file, shown: segments.join('/') };
    }
    const file = this.resolve(path.join(RUNS_DIR, `${runId}.jsonl`));
    if (!existsSync(file)) throw gone(`${RUNS_DIR}/`);
    return { file, shown: path.posix.join(RUNS_DIR, `${runId}.jsonl`) };
  }

  /**
   * Saves a copy of a run's transcript where the person chooses (the save dialog suggests
   * `<runId>.jsonl`), copied as a stream so a run of any size exports. `path` is where it went;
   * `null` when the person cancelled.
   */
  async exportRun(runId: string, press: PersonPress): Promise<{ path: string | null }> {
    const { file, shown } = this.transcript(runId);
    const target = await this.host.dialogs.chooseSaveFile(press, `${runId}.jsonl`);
    if (target === null) return { path: null };
    if (!path.isAbsolute(target)) throw new ContractError('export-failed', `${target}: not an absolute path`);
    try {
      await copyRegularFile(file, target, 'transcript', shown);
    } catch (error) {
      if (error instanceof FileReadError) throw new ContractError('not-found', error.message);
      throw new ContractError('export-failed', errorMessage(error));
    }
    return { path: target };
  }

  /** A window of a run's transcript, read by byte range (see {@link readTranscriptPage}). */
  readPage(runId: string, from: number, count: number): TranscriptPage {
    const { file, shown } = this.transcript(runId);
    try {
      return readTranscriptPage(file, from, count, shown);
    } catch (error) {
      throw transcriptContractError(error);
    }
  }

  /** Two runs compared as streams, only as far as the window asked for needs. */
  compare(left: string, right: string, window: { from?: number; count?: number } = {}): RunComparison {
    const l = { ...this.transcript(left), runId: left };
    const r = { ...this.transcript(right), runId: right };
    try {
      return { ...compareTranscripts(l, r, window), ...comparisonHeader(l, r) };
    } catch (error) {
      throw transcriptContractError(error);
    }
  }
}

/** A transcript read failure as a contract error: a vanished file is `run-not-found`. */
export function transcriptContractError(error: unknown): unknown {
  if (error instanceof TranscriptGoneError) return new ContractError('run-not-found', error.message);
  if (error instanceof TranscriptError) return new ContractError('transcript-unreadable', error.message);
  return error;
}
