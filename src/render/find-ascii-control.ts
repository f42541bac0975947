/**
 * A search for the control characters of `neutralizeText` (C0 but tab, line feed and carriage
 * return; DEL) in ASCII text, sixteen bytes at a time. Every body a turn reads is searched whole
 * (see neutralizeText), and a regular-expression class scan costs about 15 instructions a
 * character; most bodies are ASCII and hold no control at all.
 *
 * `searchOf(text)` answers undefined when the text is short, not ASCII, or WebAssembly SIMD is
 * not available: the caller then searches with its regular expression. Otherwise it answers a
 * search: `next(from)` is the index of the first such character at or after `from`, or -1.
 * (Carriage returns are left to the caller, which keeps CR LF: a CRLF text would stop here at
 * every line.)
 */
export function asciiControlSearchOf(text: string): { next(from: number): number } | undefined {
  if (!scanner || text.length < minLength || text.length > maxLength) return undefined;
  const { memory, scan } = scanner;
  const needed = text.length + chunk;
  if (memory.buffer.byteLength < needed) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / page));
  // Exactly as many bytes as characters: encodeInto stops short on the first non-ASCII one.
  const { read, written } = encoder.encodeInto(text, new Uint8Array(memory.buffer, 0, text.length));
  if (read !== text.length || written !== text.length) return undefined;
  const bytes = new Uint8Array(memory.buffer, 0, written);
  return {
    next(from) {
      // The scan answers the first 16-byte block holding a control (or where fewer than 16 are
      // left); the control within it, and the last few bytes, are found here.
      for (let at = scan(Math.max(0, from), written); at < written; at++) {
        const byte = bytes[at] ?? 0;
        if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) || byte === 0x7f) return at;
      }
      return -1;
    },
  };
}

// --- Internal helpers ---

// Below this, the regular expression costs less than going through WebAssembly.
const minLength = 1024;
// Memory once grown stays: bodies beyond this are left to the regular expression.
const maxLength = 16 * 1024 * 1024;
const chunk = 16;
const page = 65536;
const encoder = new TextEncoder();

/** `v128.const` of one byte sixteen times. */
function splat(byte: number): number[] {
  return [0xfd, 0x0c, ...new Array<number>(16).fill(byte)];
}

/**
 * The module, as bytes (WebAssembly 1.0 with the SIMD proposal, in Node since 16.4):
 *
 *   (memory (export "memory") 2)
 *   (func (export "scan") (param $at i32) (param $end i32) (result i32) (local $v v128)
 *     (block $found (loop $next
 *       (br_if $found (i32.gt_u (i32.add (local.get $at) (i32.const 16)) (local.get $end)))
 *       (local.set $v (v128.load (local.get $at)))
 *       (br_if $found (v128.any_true (v128.or
 *         (v128.andnot (i8x16.lt_u (local.get $v) (i8x16 0x20))
 *                      (v128.or (v128.or (i8x16.eq (local.get $v) (i8x16 0x09))
 *                                        (i8x16.eq (local.get $v) (i8x16 0x0a)))
 *                               (i8x16.eq (local.get $v) (i8x16 0x0d))))
 *         (i8x16.gt_u (local.get $v) (i8x16 0x7e)))))
 *       (local.set $at (i32.add (local.get $at) (i32.const 16)))
 *       (br $next)))
 *     (local.get $at))
 *
 * `gt_u 0x7e` also takes bytes beyond ASCII, which a text that passed the ASCII check has none of.
 */
function moduleBytes(): Uint8Array {
  const get = (local: number) => [0x20, local];
  const body = [
    ...[0x01, 0x01, 0x7b], // locals: one v128
    ...[0x02, 0x40, 0x03, 0x40], // block, loop
    ...get(0),
    0x41,
    0x10,
    0x6a,
    ...get(1),
    0x4b,
    0x0d,
    0x01, // br_if at + 16 > end
    ...get(0),
    0xfd,
    0x00,
    0x04,
    0x00,
    0x21,
    0x02, // v = v128.load at
    ...get(2),
    ...splat(0x20),
    0xfd,
    0x26, // lt_u 0x20
    ...get(2),
    ...splat(0x09),
    0xfd,
    0x23, // eq tab
    ...get(2),
    ...splat(0x0a),
    0xfd,
    0x23,
    0xfd,
    0x50, // or eq line feed
    ...get(2),
    ...splat(0x0d),
    0xfd,
    0x23,
    0xfd,
    0x50, // or eq carriage return
    ...[0xfd, 0x4f], // andnot
    ...get(2),
    ...splat(0x7e),
    0xfd,
    0x28,
    0xfd,
    0x50, // or gt_u 0x7e
    ...[0xfd, 0x53, 0x0d, 0x01], // br_if any_true
    ...get(0),
    0x41,
    0x10,
    0x6a,
    0x21,
    0x00, // at += 16
    ...[0x0c, 0x00, 0x0b, 0x0b], // br loop; end loop; end block
    ...get(0),
    0x0b, // at
  ];
  const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];
  const name = (text: string) => [text.length, ...Array.from(text, (character) => character.charCodeAt(0))];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(1, [0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f]), // type (i32, i32) -> i32
    ...section(3, [0x01, 0x00]), // one function of that type
    ...section(5, [0x01, 0x00, 0x02]), // memory, 2 pages to start
    ...section(7, [0x02, ...name('scan'), 0x00, 0x00, ...name('memory'), 0x02, 0x00]),
    ...section(10, [0x01, ...uleb(body.length), ...body]),
  ]);
}

function uleb(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = rest & 0x7f;
    rest >>>= 7;
    bytes.push(rest === 0 ? low : low | 0x80);
  } while (rest !== 0);
  return bytes;
}

/** What is used of WebAssembly (this project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}

// Without WebAssembly SIMD (or WebAssembly at all: `--jitless`), the regular expression it is.
const scanner = (() => {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (!wasm) return undefined;
  try {
    const { exports } = new wasm.Instance(new wasm.Module(moduleBytes()));
    return {
      memory: exports.memory as WasmMemory,
      scan: exports.scan as (at: number, end: number) => number,
    };
  } catch {
    return undefined;
  }
})();
