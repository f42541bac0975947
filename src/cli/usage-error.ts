/** Bad usage of the command line: exit code 2, and the usage text is shown. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
