import { toneOf } from '../mcp/status-tone.js';

/** ANSI styles for one output stream; plain text when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
}

const codes = { bold: [1, 22], dim: [2, 22], green: [32, 39], yellow: [33, 39], red: [31, 39] } as const;

/**
 * Colour only on a terminal that supports it, never when NO_COLOR is set (https://no-color.org)
 * or the output is piped. `hasColors()` also honours FORCE_COLOR and TERM=dumb.
 */
export function createStyle(stream: NodeJS.WriteStream, environment = process.env): Style {
  const enabled =
    stream.isTTY === true &&
    !environment.NO_COLOR &&
    (typeof stream.hasColors === 'function' ? stream.hasColors() : true);
  const paint =
    ([open, close]: readonly [number, number]) =>
    (text: string) =>
      enabled && text ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: paint(codes.bold),
    dim: paint(codes.dim),
    green: paint(codes.green),
    yellow: paint(codes.yellow),
    red: paint(codes.red),
  };
}

/** A trace status or connection state in the colour of its tone (`statusTones`). */
export function paintStatus(style: Style, status: string): string {
  const tone = toneOf(status);
  if (tone === 'good') return style.green(status);
  if (tone === 'warn') return style.yellow(status);
  if (tone === 'bad') return style.red(status);
  return status;
}
