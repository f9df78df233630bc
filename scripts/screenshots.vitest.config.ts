/**
 * The vitest configuration of `npm run screenshots` (scripts/screenshots.ts): the project's own
 * (vitest.config.ts), plus the setup file that freezes the core's clock (test/e2e/screenshot-clock.ts).
 */
import path from 'node:path';
import { mergeConfig } from 'vitest/config';
import projectConfig from '../vitest.config.js';

const root = path.resolve(import.meta.dirname, '..');

export default mergeConfig(projectConfig, {
  root,
  test: { setupFiles: [path.join(root, 'test', 'e2e', 'screenshot-clock.ts')] },
});
