import fc from 'fast-check';

// A property's `maxLength` (or `maxDepth`) is what it means to try: fast-check 4 otherwise
// generates `small` values whatever the bound (fc.array with maxLength 1,500: at most 10 elements,
// 4.9 on average over 2,000 samples), and the chunk index's property passed 400 runs with its
// postings broken (a repeated term added as a second pair). Both configs load this file:
// vitest.config.ts and vitest.mutation.config.ts.
fc.configureGlobal({ defaultSizeToMaxWhenMaxSpecified: true });
