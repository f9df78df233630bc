import { closeSync, constants, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, writeSync } from 'node:fs';
import path, { dirname } from 'node:path';
import type { RunEvent } from '../../../common/run-events.js';
import { TranscriptError } from './transcript-error.js';
import { platformOpenFlags } from '../files/regular-file.js';

/**
 * A transcript cannot be written where it was asked to go: a folder of it inside the workspace is a
 * symbolic link that leads outside, or the file is a symbolic link. The message names the path and
 * the fix. A {@link TranscriptError}, so the CLI and the studio report it as a setup problem.
 */
export class TranscriptPathError extends TranscriptError {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptPathError';
  }
}

/** Created transcript files: the owner alone may read them (they hold prompts, outputs, arguments). */
const TRANSCRIPT_FILE_MODE = 0o600;
/** Folders created for transcripts (`runs/`): the owner's alone. An existing folder keeps its mode. */
const TRANSCRIPT_FOLDER_MODE = 0o700;

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/**
 * `folder` with every symbolic link resolved; for a folder not created yet, its nearest existing
 * ancestor resolved and the rest of the path appended. A link that leads nowhere is refused (the
 * folder would be created wherever it points).
 */
function resolvedFolder(folder: string): string {
  const rest: string[] = [];
  let existing = folder;
  for (;;) {
    try {
      return path.join(realpathSync.native(existing), ...rest);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      if (lstatSync(existing, { throwIfNoEntry: false })?.isSymbolicLink())
        throw new TranscriptPathError(
          `cannot write the transcript in ${folder}: ${existing} is a symbolic link to ${readlinkSync(existing)}, which does not exist; transcripts are written in the workspace's own folders. Remove the link (a real folder is made in its place)`,
        );
      const parent = path.dirname(existing);
      if (parent === existing) throw error;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/** The first symbolic link on the way from `root` down to `folder`, for the message. */
function firstLink(root: string, folder: string): string | undefined {
  let at = root;
  for (const part of path.relative(root, folder).split(path.sep)) {
    at = path.join(at, part);
    if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return at;
  }
  return undefined;
}

/**
 * Refuses a transcript path that lies in `workspace` by name but, through symbolic links, outside it
 * in fact (a `runs/` that is a link to /tmp, say): the check compares real paths, so a link that
 * leads back inside the workspace is fine. A path outside the workspace by name (an explicit
 * `--transcript` elsewhere) is not checked. Throws a {@link TranscriptPathError} naming the link
 * and the fix. Exported for callers that want to check before a run is built.
 */
export function checkTranscriptFolder(transcriptPath: string, workspace: string): void {
  const root = path.resolve(workspace);
  const folder = path.dirname(path.resolve(transcriptPath));
  if (!isInside(folder, root)) return;
  const realRoot = resolvedFolder(root);
  const real = resolvedFolder(folder);
  if (isInside(real, realRoot)) return;
  const link = firstLink(root, folder) ?? folder;
  const name = path.relative(root, link) || link;
  throw new TranscriptPathError(
    `cannot write the transcript in ${folder}: ${link} is a symbolic link that leads outside the workspace (the folder is really ${real}, which is not in ${realRoot}); transcripts stay in the workspace. Replace the link with a folder (rm ${name} && mkdir ${name}), or choose where the transcript goes on purpose with --transcript PATH`,
  );
}

/**
 * Appends run events to a JSONL transcript, one line per event, each written with its own
 * `write(2)` as it happens: a crash loses at most the event being written, and whatever was written
 * stays readable. Events arrive redacted: the run redacts every event once, before it is written
 * or shown (main/core/secrets/redact.ts).
 *
 * A transcript holds prompts, tool outputs and arguments, so it is the owner's alone: a new file is
 * created 0600 and a missing folder 0700 (an existing folder is left as it is: changing the mode of
 * a folder the user made is not the writer's call, and the files in it are 0600 whatever the
 * folder's mode). The file itself may not be a symbolic link. With `workspace`, a path in the
 * workspace must really be in it ({@link checkTranscriptFolder}), before and after the folder is made.
 */
export class TranscriptWriter {
  private fd: number | undefined;
  private written = 0;

  /** `maxBytes` caps what this writer appends; a `run-end` event is written even past it. */
  constructor(
    readonly path: string,
    private readonly maxBytes = Infinity,
    options: { workspace?: string } = {},
  ) {
    const { workspace } = options;
    if (workspace !== undefined) checkTranscriptFolder(path, workspace);
    mkdirSync(dirname(path), { recursive: true, mode: TRANSCRIPT_FOLDER_MODE });
    // Checked again: a link may have been put in place while the folder was being made.
    if (workspace !== undefined) checkTranscriptFolder(path, workspace);
    const nofollow = platformOpenFlags.O_NOFOLLOW ?? 0;
    try {
      this.fd = openSync(
        path,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | nofollow,
        TRANSCRIPT_FILE_MODE,
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (nofollow !== 0 && (code === 'ELOOP' || code === 'EMLINK'))
        throw new TranscriptPathError(
          `cannot write the transcript ${path}: it is a symbolic link (to ${readlinkSync(path)}); a transcript is written to a file of its own. Remove the link, or choose another path`,
        );
      throw error;
    }
  }

  /** Appends the event; false (and nothing written) when it would take the file past `maxBytes`. */
  write(event: RunEvent): boolean {
    if (this.fd === undefined) return true;
    const line = JSON.stringify(event) + '\n';
    const bytes = Buffer.byteLength(line);
    if (event.type !== 'run-end' && this.written + bytes > this.maxBytes) return false;
    writeSync(this.fd, line);
    this.written += bytes;
    return true;
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
