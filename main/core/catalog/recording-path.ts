import { agentNameOf } from '../../../common/agent-name.js';

/**
 * Where an agent's recording lives: `recordings/<agent name>.jsonl` inside its workspace. One module
 * with no dependencies but the agent's name (common/agent-name.ts), for the studio (explorer tags, rename, delete) and the CLI (its offline
 * hint) alike.
 */
export const RECORDINGS_DIR = 'recordings';

/** `recordings/<name>.jsonl` for an agent path `agents/<name>.lua` (either slash). */
export function recordingPathFor(agent: string): string {
  return `${RECORDINGS_DIR}/${agentNameOf(agent)}.jsonl`;
}
