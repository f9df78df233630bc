import type { CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import { StreamLanguage } from '@codemirror/language';
import { lua } from '@codemirror/legacy-modes/mode/lua';
import type { Diagnostic } from '@codemirror/lint';
import { checkLuaSyntax } from './lua-syntax-check';

/** Lua highlighting (the legacy stream mode). */
export const luaLanguage = StreamLanguage.define(lua);

/** Syntax errors as editor diagnostics. */
export function luaDiagnostics(text: string): Diagnostic[] {
  return checkLuaSyntax(text).map((problem) => ({
    from: problem.from,
    to: Math.min(problem.to, text.length),
    severity: 'error',
    message: `line ${problem.line}, column ${problem.column}: ${problem.message}`,
  }));
}

const hostApi = [
  {
    label: 'models.chat',
    detail: '(messages, { model?, tools? })',
    info: 'Asks a model; returns { content, tool_calls }',
  },
  { label: 'tools.call', detail: "('alias', { ... })", info: 'Dispatches a catalog tool (approval policy applies)' },
  { label: 'tools.calls', detail: "['alias']", info: 'How many times each tool was dispatched in this run' },
  { label: 'untrusted', detail: '(text)', info: "Wraps text in the run's untrusted_input envelope" },
  { label: 'log', detail: '(text)', info: 'Writes a line to the run log' },
  { label: 'print', detail: '(...)', info: 'Writes to the run log' },
];

/** The completion source for agent scripts: host API, then tool and model aliases inside strings. */
export function luaCompletion(catalog: () => { tools: string[]; models: string[] }): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const line = context.state.doc.lineAt(context.pos);
    const before = line.text.slice(0, context.pos - line.from);
    const toolString =
      // Aliases may hold dots (MCP tools are `<server>.<tool>`).
      /tools\.call\(\s*['"]([\w.-]*)$/.exec(before) ??
      /tools\.calls\[\s*['"]([\w.-]*)$/.exec(before) ??
      /tools\s*=\s*\{[^}]*['"]([\w.-]*)$/.exec(before);
    if (toolString) {
      return {
        from: context.pos - toolString[1]!.length,
        options: catalog().tools.map((alias) => ({ label: alias, type: 'constant', detail: 'tool' })),
        validFor: /^[\w.-]*$/,
      };
    }
    const modelString = /model\s*=\s*['"]([\w-]*)$/.exec(before);
    if (modelString) {
      return {
        from: context.pos - modelString[1]!.length,
        options: catalog().models.map((alias) => ({ label: alias, type: 'constant', detail: 'model' })),
        validFor: /^[\w-]*$/,
      };
    }
    const word = context.matchBefore(/[A-Za-z_][\w.]*/);
    if (!word && !context.explicit) return null;
    return {
      from: word ? word.from : context.pos,
      options: hostApi.map((entry) => ({ ...entry, type: 'function' })),
      validFor: /^[\w.]*$/,
    };
  };
}
