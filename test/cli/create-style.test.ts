import { describe, expect, it } from 'vitest';
import { createStyle, paintStatus } from '../../src/cli/create-style.js';
import { formatTable } from '../../src/cli/format-table.js';

const terminal = { isTTY: true, hasColors: () => true } as unknown as NodeJS.WriteStream;
const pipe = { isTTY: false } as unknown as NodeJS.WriteStream;

describe('createStyle', () => {
  it('colours on a terminal', () => {
    expect(createStyle(terminal, {}).green('ok')).toBe('\u001b[32mok\u001b[39m');
  });

  it('never colours when NO_COLOR is set or output is piped', () => {
    expect(createStyle(terminal, { NO_COLOR: '1' }).green('ok')).toBe('ok');
    expect(createStyle(pipe, {}).red('no')).toBe('no');
  });

  it('colour codes do not break table alignment', () => {
    const style = createStyle(terminal, {});
    const plain = formatTable(
      ['a', 'b'],
      [
        ['injected', 'x'],
        ['error', 'y'],
      ],
    );
    const painted = formatTable(
      ['a', 'b'],
      [
        ['injected', 'x'],
        ['error', 'y'],
      ],
      (text, row, column) => (row >= 0 && column === 0 ? style.red(text) : text),
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI colour codes.
    expect(painted.replace(/\u001b\[\d+m/g, '')).toBe(plain);
  });

  it('paints each status and connection state by its tone; a failed server reads red', () => {
    const style = createStyle(terminal, {});
    const painted = [
      'injected',
      'connected',
      'omitted-budget',
      'disconnected',
      'failed',
      'denied',
      'idle',
      'whatever',
    ];
    expect(painted.map((status) => paintStatus(style, status))).toEqual([
      '\u001b[32minjected\u001b[39m',
      '\u001b[32mconnected\u001b[39m',
      '\u001b[33momitted-budget\u001b[39m',
      '\u001b[33mdisconnected\u001b[39m',
      '\u001b[31mfailed\u001b[39m',
      '\u001b[31mdenied\u001b[39m',
      'idle',
      'whatever',
    ]);
  });
});
