/** What an allowed read must still respect once the server answers (an access binding's limits). */
export interface AccessLimits {
  readonly maxBytes?: number;
  /** Each list (the pipeline's, the agent's) must admit every content item's media type. */
  readonly mimeTypes: readonly (readonly string[])[];
}
