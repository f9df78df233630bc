// The canonical JSON helper lives below run, in main/core/tools, where the tool definition digest
// (tools/tool-definition.ts) and the approval gate use it too.
export { canonicalJson } from '../tools/tool-definition.js';
