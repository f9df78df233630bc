import path from 'node:path';

/**
 * Where an agent's recording lives: `recordings/<agent name>.jsonl` inside its workspace. One module
 * with no dependencies, for the studio (explorer tags, rename, delete) and the CLI (its offline
 * hint) alike.
 */
export const RECORDINGS_DIR = 'recordings';

/** `recordings/<name>.jsonl` for an agent path `agents/<name>.lua` (either slash). */
export function recordingPathFor(agent: string): string {
  return `${RECORDINGS_DIR}/${path.posix.basename(agent.replaceAll('\\', '/'), '.lua')}.jsonl`;
}
