#!/usr/bin/env node
// The `promptforge` bin. It loads the TypeScript CLI through tsx, so `npx promptforge` works in a
// checkout right after `npm install`, with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));
