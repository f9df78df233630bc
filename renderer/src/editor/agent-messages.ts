/**
 * The message typed for each agent ("Message to the agent", under its toolbar): what ▶ Run gives
 * the script as `...`. Kept per agent while the window is open, never written to a file.
 */
import { useSyncExternalStore } from 'react';

/** Longest message main accepts (`run:start`'s `input`). */
export const MAX_MESSAGE_CHARS = 100_000;

class AgentMessages {
  private readonly messages = new Map<string, string>();
  private readonly listeners = new Set<() => void>();

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The message typed for `path` (empty when none). */
  get(path: string): string {
    return this.messages.get(path) ?? '';
  }

  set(path: string, text: string): void {
    if (text === this.get(path)) return;
    if (text === '') this.messages.delete(path);
    else this.messages.set(path, text);
    for (const listener of [...this.listeners]) listener();
  }

  /** The agent was renamed: its message follows it. */
  renamed(from: string, to: string): void {
    const text = this.get(from);
    this.messages.delete(from);
    this.set(to, text);
  }
}

export const agentMessages = new AgentMessages();

/** The message typed for `path`; re-renders when it changes. */
export function useAgentMessage(path: string): string {
  return useSyncExternalStore(agentMessages.subscribe, () => agentMessages.get(path));
}
