/**
 * Test environments shipped with PromptForge. Each import below registers its environment with
 * `registerTestEnvironment` when loaded; `promptforge test` imports this file once before it reads cases.
 */
import './banking.js';
import './slack.js';
