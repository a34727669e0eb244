// Where the real TripleO tree lives: the shared corpus beside the repository
// (STACKSPEC_SHARED moves it). Suites that need it skip with a printed reason
// locally and fail in CI (STACKSPEC_REQUIRE_ORACLES), like the oracles.
import { sharedAvailable, sharedPath } from '../../../test-support/shared.js';

export const CORPUS_ROOT = sharedPath('corpus', 'tripleo-heat-templates');

/** Whether the tree is present; throws in CI when it is not. */
export function corpusAvailable(): boolean {
  return sharedAvailable('the TripleO corpus', 'corpus', 'tripleo-heat-templates');
}
