import fc from 'fast-check';

// A property's `maxLength` (or `maxDepth`) is what it means to try: fast-check 4 otherwise
// generates `small` values whatever the bound (arrays of about ten elements), so a property over
// bodies "of up to 1,500 pieces" never met a chunk with a word twice.
fc.configureGlobal({ defaultSizeToMaxWhenMaxSpecified: true });
