import { shorten } from './require-positionals.js';

/** What a listing says of a resource, template or prompt beyond its identity (MCP spec, "Resource"). */
export interface ListedItem {
  readonly name: string;
  readonly title?: string;
  readonly size?: number;
  readonly icons?: readonly { readonly src: string }[];
  readonly annotations?: { readonly audience?: readonly string[]; readonly lastModified?: string };
}

/** The display name: the title a server gives for people, with the programmatic name beside it. */
export function displayName(item: ListedItem): string {
  return item.title !== undefined && item.title !== item.name
    ? `${terminalSafe(item.title)} (${terminalSafe(item.name)})`
    : terminalSafe(item.name);
}

const columns: readonly { header: string; cell: (item: ListedItem) => string | undefined }[] = [
  { header: 'size', cell: (item) => (item.size === undefined ? undefined : formatBytes(item.size)) },
  { header: 'for', cell: (item) => item.annotations?.audience?.join('+') },
  { header: 'modified', cell: (item) => item.annotations?.lastModified },
  { header: 'icon', cell: (item) => item.icons?.[0]?.src },
];

/**
 * Size, audience, last modification and icon columns, each only when some item of the listing
 * has it, so a listing without them keeps its usual shape.
 */
export function listedItemColumns(items: readonly ListedItem[]): {
  header: string[];
  cells(item: ListedItem): string[];
} {
  const present = columns.filter((column) => items.some((item) => column.cell(item) !== undefined));
  return {
    header: present.map((column) => column.header),
    cells: (item) => present.map((column) => terminalSafe(shorten(column.cell(item) ?? '-', 48))),
  };
}

/** Server-sent text on a terminal: control characters (escape sequences) are shown, not obeyed. */
export function terminalSafe(text: string): string {
  return text.replace(/\p{Cc}/gu, '\uFFFD');
}

// --- Internal helpers ---

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
