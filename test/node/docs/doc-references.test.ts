// The docs name only what exists: every file path and every function or method a Markdown file
// of the repository puts in code quotes is found in the repository (a path as written, or as the
// end of a tracked file's path; a built .js file by its .ts source), so a rename or a removal
// that leaves a doc behind fails here.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../setup/project-copy.js';

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repositoryRoot, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean);
const docs = tracked.filter((file) => file.endsWith('.md') && !file.includes('node_modules/'));
const sources = tracked.filter((file) => /\.(ts|tsx|mjs|js|lua)$/.test(file));
const sourceText = sources.map((file) => readFileSync(path.join(repositoryRoot, file), 'utf8')).join('\n');

/** Code spans of a Markdown text, fenced blocks left out (they show commands and output). */
function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
}

/**
 * Files the docs name that are not the repository's own, each for a reason: what the product
 * writes at run time, the packed app's layout, and files of the projects the docs credit.
 */
const NOT_IN_REPOSITORY = new Set([
  'report.json', // promptforge test's report, written next to a suite's runs
  'trust-log.jsonl', // the trust store's log, in the user's config folder
  'approval-rules.yaml', // the person's approval rules, in the user's config folder
  'model-choices.json', // the models chosen per agent in the studio, in the user's config folder
  'spending-cap.json', // the studio's spending cap, in the user's config folder
  'approval-rules-usage.json', // when each rule last decided a call, beside them
  'approval-rule-definitions.json', // the tool definitions rules were confirmed on, beside them
  'recent-workspaces.json', // the studio's recent workspaces, in the user's config folder
  'userData/window-state.json', // Electron's per-user folder
  'tool.js', // a workspace's command tool script, as the trust digest finds it
  'platformPackager.ts', // electron-builder's source, where the docs point to its behaviour
  'injection_vectors.yaml', // AgentDojo's files (examples/agentdojo/PROVENANCE.md)
]);

const PATH = /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*\.(?:ts|tsx|mjs|js|json|yaml|lua|md|css|sh|jsonl)$/;

/** Whether a path a doc names is in the repository. */
function pathExists(named: string): boolean {
  // Placeholders (agents/NAME.lua), paths outside the repository, and the packed app's layout.
  if (/[A-Z]{3,}/.test(named.replace(/\.[a-z]+$/, '').replace(/(README|BENCHMARKS|PROVENANCE|LICENSE)/g, '')))
    return true;
  if (NOT_IN_REPOSITORY.has(named)) return true;
  if (/^(\.\.\/|app\.asar|out\/|resources\/|src\/agentdojo\/)/.test(named)) return true;
  const candidates = [named, named.replace(/\.js$/, '.ts'), named.replace(/\.js$/, '.mjs')];
  return candidates.some((candidate) => tracked.some((file) => file === candidate || file.endsWith(`/${candidate}`)));
}

/** Whether a function, or a method of a class, that a doc names is defined in the sources. */
function symbolExists(named: string): boolean {
  const [owner, member] = named.includes('.') ? named.split('.') : [undefined, named];
  const word = new RegExp(`\\b${member}\\b`);
  if (owner === undefined || !/^[A-Z]/.test(owner)) return word.test(sourceText);
  // A member of one of our classes: the class is defined in a file that also has the member.
  // (JSON.parse, Atomics.wait or a library's class are not ours to check.)
  const definesOwner = new RegExp(`\\b(class|interface|type|const|function) ${owner}\\b`);
  const files = sources.filter((file) => definesOwner.test(readFileSync(path.join(repositoryRoot, file), 'utf8')));
  return files.length === 0 || files.some((file) => word.test(readFileSync(path.join(repositoryRoot, file), 'utf8')));
}

describe('what the docs name exists', () => {
  it.each(docs)('%s', (doc) => {
    const missing: string[] = [];
    for (const span of codeSpans(readFileSync(path.join(repositoryRoot, doc), 'utf8'))) {
      if (PATH.test(span) && !pathExists(span)) missing.push(`the file ${span}`);
      const call = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)\(/.exec(span);
      if (call && !span.includes(' ') && !symbolExists(call[1]!)) missing.push(`the function ${call[1]}`);
      const member = /^([A-Z][\w$]*)\.([a-z][\w$]*)$/.exec(span);
      if (member && !symbolExists(span)) missing.push(`the member ${span}`);
    }
    expect(missing, `${doc} names what the repository does not have`).toEqual([]);
  });
});
