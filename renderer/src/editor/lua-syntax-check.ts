/**
 * A small Lua 5.4 syntax checker for live diagnostics while typing: a tokenizer (strings, long
 * strings and comments, numbers, names, symbols) and a balance check of the block keywords
 * (function/if/for/while/do/repeat ... end/until) and brackets. It is deliberately not a full
 * parser: it must never flag valid Lua, and the VM reports everything else exactly at run time.
 */

/** One syntax problem: 1-based line and column, and offsets into the text for the editor. */
export interface LuaSyntaxProblem {
  from: number;
  to: number;
  line: number;
  column: number;
  message: string;
}

type TokenKind = 'name' | 'keyword' | 'symbol' | 'string' | 'number';

interface Token {
  kind: TokenKind;
  text: string;
  from: number;
  to: number;
}

const keywords = new Set([
  'and',
  'break',
  'do',
  'else',
  'elseif',
  'end',
  'false',
  'for',
  'function',
  'goto',
  'if',
  'in',
  'local',
  'nil',
  'not',
  'or',
  'repeat',
  'return',
  'then',
  'true',
  'until',
  'while',
]);

const threeCharSymbols = ['...'];
const twoCharSymbols = ['==', '~=', '<=', '>=', '//', '::', '<<', '>>', '..'];
const oneCharSymbols = '+-*/%^#&~|<>=(){}[];:,.';

class LuaSyntaxError extends Error {
  constructor(
    message: string,
    readonly from: number,
    readonly to: number,
  ) {
    super(message);
  }
}

/** The level of a long bracket opening at `index` (`[[` is 0, `[==[` is 2), or -1. */
function longBracketLevel(text: string, index: number): number {
  if (text[index] !== '[') return -1;
  let cursor = index + 1;
  while (text[cursor] === '=') cursor += 1;
  return text[cursor] === '[' ? cursor - index - 1 : -1;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  const length = text.length;
  const skipLong = (start: number, level: number, what: string): number => {
    const close = `]${'='.repeat(level)}]`;
    const end = text.indexOf(close, start + level + 2);
    if (end === -1) throw new LuaSyntaxError(`unfinished long ${what}`, start, Math.min(length, start + level + 2));
    return end + close.length;
  };
  while (index < length) {
    const char = text[index]!;
    if (char === ' ' || char === '\t' || char === '\r' || char === '\n' || char === '\f' || char === '\v') {
      index += 1;
      continue;
    }
    if (char === '-' && text[index + 1] === '-') {
      const level = longBracketLevel(text, index + 2);
      if (level >= 0) {
        index = skipLong(index + 2, level, 'comment');
      } else {
        const newline = text.indexOf('\n', index);
        index = newline === -1 ? length : newline;
      }
      continue;
    }
    if (index === 0 && char === '#' && text[1] === '!') {
      const newline = text.indexOf('\n');
      index = newline === -1 ? length : newline;
      continue;
    }
    const start = index;
    if (/[A-Za-z_]/.test(char)) {
      while (index < length && /[A-Za-z0-9_]/.test(text[index]!)) index += 1;
      const word = text.slice(start, index);
      tokens.push({ kind: keywords.has(word) ? 'keyword' : 'name', text: word, from: start, to: index });
      continue;
    }
    if (/[0-9]/.test(char) || (char === '.' && /[0-9]/.test(text[index + 1] ?? ''))) {
      const hex = char === '0' && (text[index + 1] === 'x' || text[index + 1] === 'X');
      index += hex ? 2 : 0;
      const exponent = hex ? /[pP]/ : /[eE]/;
      while (index < length) {
        const next = text[index]!;
        if (exponent.test(next) && (text[index + 1] === '+' || text[index + 1] === '-')) index += 2;
        else if (/[0-9A-Za-z_.]/.test(next)) index += 1;
        else break;
      }
      tokens.push({ kind: 'number', text: text.slice(start, index), from: start, to: index });
      continue;
    }
    if (char === '"' || char === "'") {
      index += 1;
      let closed = false;
      while (index < length) {
        const next = text[index]!;
        if (next === '\\') {
          const escaped = text[index + 1];
          index += 2;
          // An escaped newline continues the string (\r\n counts as one); `\z` skips the
          // whitespace that follows, newlines included.
          if ((escaped === '\r' && text[index] === '\n') || (escaped === '\n' && text[index] === '\r')) index += 1;
          if (escaped === 'z') while (index < length && /\s/.test(text[index]!)) index += 1;
          continue;
        }
        if (next === '\n') break;
        index += 1;
        if (next === char) {
          closed = true;
          break;
        }
      }
      if (!closed) throw new LuaSyntaxError('unfinished string', start, Math.min(index, length));
      tokens.push({ kind: 'string', text: text.slice(start, index), from: start, to: index });
      continue;
    }
    if (char === '[') {
      const level = longBracketLevel(text, index);
      if (level >= 0) {
        index = skipLong(index, level, 'string');
        tokens.push({ kind: 'string', text: text.slice(start, index), from: start, to: index });
        continue;
      }
    }
    const symbol =
      threeCharSymbols.find((s) => text.startsWith(s, index)) ?? twoCharSymbols.find((s) => text.startsWith(s, index));
    if (symbol !== undefined) {
      index += symbol.length;
      tokens.push({ kind: 'symbol', text: symbol, from: start, to: index });
      continue;
    }
    if (oneCharSymbols.includes(char)) {
      index += 1;
      tokens.push({ kind: 'symbol', text: char, from: start, to: index });
      continue;
    }
    throw new LuaSyntaxError(`unexpected symbol '${char}'`, start, start + 1);
  }
  return tokens;
}

interface Frame {
  /** The token that opened it: a block keyword or a bracket. */
  opener: string;
  token: Token;
  /** What must come before the body: `do` after for/while, `then` after if/elseif. */
  awaiting?: 'do' | 'then';
}

const closingBracket: Readonly<Record<string, string>> = { '(': ')', '{': '}', '[': ']' };

function expectedCloser(frame: Frame): string {
  if (frame.awaiting) return frame.awaiting;
  if (frame.opener in closingBracket) return closingBracket[frame.opener]!;
  return frame.opener === 'repeat' ? 'until' : 'end';
}

function checkStructure(text: string, tokens: Token[]): void {
  const stack: Frame[] = [];
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  const unexpected = (token: Token): never => {
    const top = stack.at(-1);
    const hint = top
      ? ` ('${expectedCloser(top)}' expected to close '${top.opener}' at line ${lineOf(top.token.from)})`
      : '';
    throw new LuaSyntaxError(`unexpected '${token.text}'${hint}`, token.from, token.to);
  };
  for (const token of tokens) {
    const top = stack.at(-1);
    if (token.kind === 'keyword') {
      switch (token.text) {
        case 'function':
        case 'repeat':
          stack.push({ opener: token.text, token });
          break;
        case 'if':
          stack.push({ opener: 'if', token, awaiting: 'then' });
          break;
        case 'for':
        case 'while':
          stack.push({ opener: token.text, token, awaiting: 'do' });
          break;
        case 'do':
          if (top?.awaiting === 'do') delete top.awaiting;
          else stack.push({ opener: 'do', token });
          break;
        case 'then':
          if (top?.awaiting !== 'then') unexpected(token);
          delete top!.awaiting;
          break;
        case 'elseif':
          if (top?.opener !== 'if' || top.awaiting) unexpected(token);
          top!.awaiting = 'then';
          break;
        case 'else':
          if (top?.opener !== 'if' || top.awaiting) unexpected(token);
          break;
        case 'end':
          if (!top || top.awaiting || top.opener === 'repeat' || top.opener in closingBracket) unexpected(token);
          stack.pop();
          break;
        case 'until':
          if (top?.opener !== 'repeat') unexpected(token);
          stack.pop();
          break;
        default:
          break;
      }
      continue;
    }
    if (token.kind === 'symbol') {
      if (token.text in closingBracket) {
        stack.push({ opener: token.text, token });
      } else if (token.text === ')' || token.text === '}' || token.text === ']') {
        if (!top || closingBracket[top.opener] !== token.text) unexpected(token);
        stack.pop();
      }
    }
  }
  const open = stack.at(-1);
  if (open) {
    throw new LuaSyntaxError(
      `'${expectedCloser(open)}' expected (to close '${open.opener}' at line ${lineOf(open.token.from)}) near end of file`,
      open.token.from,
      open.token.to,
    );
  }
}

/** The first syntax problem in `text`, as a list (empty when the checker finds none). */
export function checkLuaSyntax(text: string): LuaSyntaxProblem[] {
  try {
    checkStructure(text, tokenize(text));
    return [];
  } catch (error) {
    if (!(error instanceof LuaSyntaxError)) throw error;
    const before = text.slice(0, error.from);
    const line = before.split('\n').length;
    const column = error.from - (before.lastIndexOf('\n') + 1) + 1;
    return [{ from: error.from, to: Math.max(error.to, error.from + 1), line, column, message: error.message }];
  }
}
