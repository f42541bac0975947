import { z } from 'zod';
import type { AttachmentStore } from '../../attachments/attachment-store.js';

export const inspectorOptionsSchema = z.strictObject({
  /** How many recent turns the page shows and keeps (and, with `content`, their rendered context). */
  maxTurns: z.number().int().min(1).max(1000).default(50),
  /** Let the page show the rendered context of a turn: resource content, so off by default. */
  content: z.boolean().default(false),
  /** Let the page pin and unpin; read-only by default. */
  pinning: z.boolean().default(false),
  /**
   * The token a request must carry (`Authorization: Bearer …` or `?token=`) unless it comes from
   * loopback with a loopback Host header. Default: 32 random bytes, readable as `inspector.token`.
   */
  token: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Serve loopback requests (127.0.0.0/8, ::1, Host localhost/127.0.0.1/[::1]) without the token.
   * Default true. A request a relay forwarded (`Forwarded`, `X-Forwarded-For`, `X-Real-IP`,
   * `X-Forwarded-Host`, `Via`) needs the token unless every client it names is loopback: a reverse
   * proxy on the same host connects from loopback. A proxy that adds none of these headers cannot
   * be told apart — behind one, set this to false.
   */
  loopbackWithoutToken: z.boolean().default(true),
  /** Where the host mounts the handler, e.g. `/inspector/`. Default `/`. */
  basePath: z
    .string()
    .regex(/^\/(?:[^?#]*\/)?$/, 'must start and end with "/"')
    .default('/'),
  /** The pin store to show; default: the provider's. */
  attachments: z
    .custom<AttachmentStore>(
      (value) => typeof (value as AttachmentStore | undefined)?.list === 'function',
      'must be an AttachmentStore',
    )
    .optional(),
});

export type InspectorOptions = z.input<typeof inspectorOptionsSchema>;
export type ResolvedInspectorOptions = z.output<typeof inspectorOptionsSchema>;
