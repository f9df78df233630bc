// A command tool that returns the text of a saved page. Its catalog entry marks it untrusted.
import { readFile } from 'node:fs/promises';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const { name } = JSON.parse(input);
process.stdout.write(await readFile(new URL(`../pages/${name}.txt`, import.meta.url), 'utf8'));
