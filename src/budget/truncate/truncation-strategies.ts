import type { TruncationStrategyName } from '../../types.js';
import { truncateHead } from './truncate-head.js';
import { truncateHeadTail } from './truncate-head-tail.js';
import { truncateRelevant } from './truncate-relevant.js';
import { truncateTail } from './truncate-tail.js';
import type { TruncationStrategy } from './truncation-strategy.js';

/** The truncation strategies by name. */
export const truncationStrategies: Readonly<Record<TruncationStrategyName, TruncationStrategy>> = {
  head: truncateHead,
  tail: truncateTail,
  'head-tail': truncateHeadTail,
  relevant: truncateRelevant,
};
