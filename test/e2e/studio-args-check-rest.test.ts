import { ARGS_CHECK_CORPUS } from '../fixtures/args-check-corpus.js';
import { describeArgsCheckWalk } from './args-check-walk.js';

// The second half of the shared corpus (the first: studio-args-check.test.ts).
describeArgsCheckWalk(
  "studio: the approval card's edit box shows exactly the core's verdict (rest of the corpus)",
  ARGS_CHECK_CORPUS.slice(Math.ceil(ARGS_CHECK_CORPUS.length / 2)),
  { approveEdit: false },
);
