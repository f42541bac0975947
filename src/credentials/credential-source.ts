/**
 * Where `{ secret: "name" }` references in server configs are looked up: the encrypted
 * credential file (`openCredentialFile`), or a host's own vault behind the same interface.
 */
export interface CredentialSource {
  /** The secret's value, or undefined when there is none by that name. */
  get(name: string): Promise<string | undefined> | string | undefined;
}
