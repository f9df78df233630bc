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

export class StudioHistory {
  /**
   * `resolve` turns a workspace-relative path into one inside the open workspace (refusing one
   * that is not); `host.chooseSaveFile` shows the OS save dialog, when the host can.
   */
  constructor(
    private readonly resolve: (relative: string) => string,
    private readonly host: { chooseSaveFile?: (suggestedName: string) => Promise<string | null> },
  ) {}

  /** The transcript of run `runId` in the workspace's runs folder; `run-not-found` when there is none. */
  transcriptFile(runId: string): string {
    if (!/^[A-Za-z0-9._-]+$/.test(runId)) throw new ContractError('run-not-found', `no run "${runId}"`);
    const file = this.resolve(path.join(RUNS_DIR, `${runId}.jsonl`));
    if (!existsSync(file))
      throw new ContractError(
        'run-not-found',
        `no transcript for run "${runId}" in ${RUNS_DIR}/: it was never recorded here, or it was deleted or moved`,
      );
    return file;
  }

  /** Run `runId`'s transcript file, and its name as messages show it (`runs/<runId>.jsonl`). */
  transcript(runId: string): { file: string; shown: string } {
    return { file: this.transcriptFile(runId), shown: path.posix.join(RUNS_DIR, `${runId}.jsonl`) };
  }

  /**
   * Saves a copy of a run's transcript where the person chooses (the save dialog suggests
   * `<runId>.jsonl`), copied as a stream so a run of any size exports. `path` is where it went;
   * `null` when the person cancelled.
   */
  async exportRun(runId: string): Promise<{ path: string | null }> {
    const file = this.transcriptFile(runId);
    if (!this.host.chooseSaveFile) throw new ContractError('not-supported', 'this host cannot show a save dialog');
    const target = await this.host.chooseSaveFile(`${runId}.jsonl`);
    if (target === null) return { path: null };
    if (!path.isAbsolute(target)) throw new ContractError('export-failed', `${target}: not an absolute path`);
    try {
      await copyRegularFile(file, target, 'transcript', path.posix.join(RUNS_DIR, `${runId}.jsonl`));
    } catch (error) {
      if (error instanceof FileReadError) throw new ContractError('not-found', error.message);
      throw new ContractError('export-failed', errorMessage(error));
    }
    return { path: target };
  }

  /** A window of a run's transcript, read by byte range (see {@link readTranscriptPage}). */
  readPage(runId: string, from: number, count: number): TranscriptPage {
    const file = this.transcriptFile(runId);
    try {
      return readTranscriptPage(file, from, count, path.posix.join(RUNS_DIR, `${runId}.jsonl`));
    } catch (error) {
      throw transcriptContractError(error);
    }
  }

  /** Two runs compared as streams, only as far as the window asked for needs. */
  compare(left: string, right: string, window: { from?: number; count?: number } = {}): RunComparison {
    const l = { file: this.transcriptFile(left), shown: path.posix.join(RUNS_DIR, `${left}.jsonl`), runId: left };
    const r = { file: this.transcriptFile(right), shown: path.posix.join(RUNS_DIR, `${right}.jsonl`), runId: right };
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
