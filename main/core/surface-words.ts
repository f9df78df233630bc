/**
 * What the core tells a person to do, worded for where they are: the terminal (commands and
 * flags) or the studio (its views and buttons). Messages the core shares with both take their
 * advice from here, so the studio never names a flag and the terminal never names a button.
 */
import { guessName, meantThen, shownName } from './did-you-mean.js';

/** Where the person reads a message. */
export type Surface = 'cli' | 'studio';

/** The advice each surface gives, one entry per situation. */
export interface SurfaceWords {
  /** A model round with no model: nothing chosen, no default. */
  noModelChosen: string;
  /** A model the person named (a flag, the model list) that models.yaml does not define. */
  unknownModel(alias: string, known: readonly string[]): string;
  /** A `provider: replay` model used for a live run. */
  replayModel(alias: string): string;
  /** Where a provider's key is stored, after "set one" (`provider` is its id, such as `openai`). */
  keyWhere(provider: string): string;
  /** How to store a secret a tool or an MCP server names. */
  setSecret(name: string): string;
  /** How to leave restricted mode (after "until you"). */
  trustWorkspace: string;
  /** How to trust again after what the workspace runs changed. */
  trustAgain: string;
  /** How to let `provider`'s key go to `origin` (for `model`). */
  allowKeyOrigin(provider: string, origin: string, model: string): string;
  /** How to sign in to an MCP server (after "…; "). */
  mcpSignIn(server: string): string;
  /** How to fork anyway when the script changed since the recording. */
  forkAnyway: string;
  /** A choice of the model list that this workspace's models.yaml does not define now (the studio's). */
  unavailableChoice(alias: string, why?: string): string;
}

function defines(known: readonly string[]): string {
  return `models.yaml defines ${known.length > 0 ? known.join(', ') : 'none'}`;
}

const CLI: SurfaceWords = {
  noModelChosen:
    'no model chosen: pass opts.model, set defaultModel in promptforge.yaml, or use --model / --base-url with --model-id',
  unknownModel: (alias, known) =>
    `unknown model "${shownName(alias)}" (from --model)${meantThen(guessName(alias, known, 'value', ''), defines(known))}`,
  replayModel: (alias) => `model "${alias}" is a replay model: run with --replay TRANSCRIPT to use it`,
  keyWhere: (provider) => `with \`promptforge keys set ${provider}\``,
  setSecret: (name) => `store it with \`promptforge keys set ${name}\``,
  trustWorkspace: 'trust the workspace first: run `promptforge trust` in it, after reading what it would run',
  trustAgain: 'Trust the workspace again (promptforge trust), then start a new run.',
  allowKeyOrigin: (provider, origin) => `promptforge trust --allow-key ${provider} ${origin}`,
  mcpSignIn: (server) => `sign in with \`promptforge mcp login ${server}\``,
  forkAnyway: 'pass --force to fork anyway',
  unavailableChoice: (alias, why) =>
    `model "${alias}" is not defined in models.yaml${why ? ` (${why})` : ''}; pass --model with one it defines`,
};

const STUDIO: SurfaceWords = {
  noModelChosen:
    'no model chosen: pick one in the model list above the editor, set defaultModel in promptforge.yaml, or pass opts.model in the script',
  unknownModel: (alias, known) =>
    `the model "${shownName(alias)}" is not in this workspace${meantThen(guessName(alias, known, 'value', ''), defines(known))}; pick one in the model list above the editor`,
  replayModel: (alias) =>
    `model "${alias}" is a replay model: it only answers from a recording; use Run offline (replay), or pick a live model in the model list`,
  keyWhere: () => 'in Credentials',
  setSecret: () => 'store it in Credentials (Secrets named in tools.yaml)',
  trustWorkspace:
    'trust the workspace first: use Review and trust… on the restricted-mode banner, after reading what it would run',
  trustAgain: 'Trust the workspace again (Review and trust… on the restricted-mode banner), then start a new run.',
  allowKeyOrigin: (_provider, _origin, model) => `Allow for model "${model}" in the Trust view`,
  mcpSignIn: (server) => `sign in to "${server}" from its entry under MCP servers in the explorer`,
  forkAnyway: 'choose Fork anyway',
  unavailableChoice: (alias, why) =>
    `The model "${alias}" you chose for this agent is not in this workspace's models.yaml${why ? ` (${why})` : ''}. Runs use the agent's default until you pick another; your choice comes back if models.yaml defines "${alias}" again.`,
};

const WORDS: Record<Surface, SurfaceWords> = { cli: CLI, studio: STUDIO };

/** The advice for `surface`; the terminal's when none is said (the CLI, and runs of the core alone). */
export function wordsFor(surface: Surface = 'cli'): SurfaceWords {
  return WORDS[surface];
}
