/**
 * An agent's name, from its script's path: the file name without `.lua`, whichever slash the path
 * uses (`agents/echo-loop.lua` and `C:\w\agents\echo-loop.lua` are both `echo-loop`). The one
 * spelling of it for the run history, recordings, the CLI and the studio's tabs and cards.
 */
export function agentNameOf(scriptPath: string): string {
  const name = scriptPath.slice(Math.max(scriptPath.lastIndexOf('/'), scriptPath.lastIndexOf('\\')) + 1);
  return name.endsWith('.lua') && name !== '.lua' ? name.slice(0, -'.lua'.length) : name;
}
