import { ARGS_CHECK_CORPUS } from '../fixtures/args-check-corpus.js';
import { describeArgsCheckWalk } from './args-check-walk.js';

// The first half of the shared corpus (the rest: studio-args-check-rest.test.ts), and an approved edit.
describeArgsCheckWalk(
  "studio: the approval card's edit box shows exactly the core's verdict",
  ARGS_CHECK_CORPUS.slice(0, Math.ceil(ARGS_CHECK_CORPUS.length / 2)),
  { approveEdit: true },
);
