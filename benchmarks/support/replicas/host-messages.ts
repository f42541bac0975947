/** What the `replicas` benchmark tells a replica process. */
export type HostCommand =
  | { readonly type: 'turns'; readonly conversations: number; readonly round: number }
  | { readonly type: 'cold-turns'; readonly samples: number }
  | { readonly type: 'invalidate'; readonly uri: string }
  | { readonly type: 'close' };

/** What a replica process reports (times are wall-clock ms, comparable across processes on one host). */
export type HostReport =
  | { readonly type: 'ready' }
  | { readonly type: 'turns'; readonly latencies: readonly number[] }
  | { readonly type: 'invalidated'; readonly uri: string; readonly at: number }
  | { readonly type: 'dropped'; readonly uri: string; readonly at: number; readonly entries: number };
