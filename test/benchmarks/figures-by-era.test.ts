import { afterEach, describe, expect, it, vi } from 'vitest';
import { requireEra, withEraSuffix } from '../../benchmarks/support/bench-era.js';
import { printTable } from '../../benchmarks/support/print-table.js';
import type { BenchResults } from '../../benchmarks/support/results-file.js';

const results = (figures: BenchResults['scenarios'][string]): BenchResults => ({
  machine: { cpu: 'test', cores: 2, node: 'v20', platform: 'linux' },
  mode: 'quick',
  date: '2026-12-05T00:00:00.000Z',
  commit: 'abc',
  dirty: false,
  scenarios: { turnGuard: figures },
});

/** What printTable writes, line by line. */
function printed(input: BenchResults): string {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    printTable(input);
    return write.mock.calls.map(([chunk]) => String(chunk)).join('');
  } finally {
    write.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('benchmark figures by MCP era (issue 34.6)', () => {
  it("a scenario's 2026-07-28 figures are named with the era, `met` too, its target not repeated", () => {
    expect(withEraSuffix({ ratio: 1.1, met: true, target: 'x ≤ 2', windows: 3 })).toEqual({
      'ratio@2026-07-28': 1.1,
      'met@2026-07-28': true,
      'windows@2026-07-28': 3,
    });
  });

  it('the printed table names the era beside every figure of a scenario that says its era, the guard too', () => {
    const text = printed(
      results({
        repeatedTurnUs: 12.5,
        fullWarmTurnUs: 99,
        era: '2025-11-25',
        'fullWarmTurnUsHttp@2026-07-28': 101,
        target: 't',
        met: true,
      }),
    );

    expect(text).toContain('fullWarmTurnUs@2025-11-25=99');
    expect(text).toContain('fullWarmTurnUsHttp@2026-07-28=101');
    expect(text).not.toContain('fullWarmTurnUsHttp@2026-07-28@');
    expect(text).not.toContain('era=');
    expect(text).toMatch(/repeated turn at 100 pins +12\.5 µs .*met {2}\(2025-11-25\)/);
  });

  it('a scenario that says no era is printed as before', () => {
    const text = printed(results({ repeatedTurnUs: 12.5, fullWarmTurnUs: 99, target: 't', met: true }));

    expect(text).toContain('fullWarmTurnUs=99');
    expect(text).not.toContain('2025-11-25');
  });

  it('a figure named for an era is refused unless the trace says every server spoke it', () => {
    const on = (...versions: string[]) => ({
      servers: versions.map((protocolVersion, index) => ({ server: `s${index}`, protocolVersion })),
    });
    expect(() => requireEra(on('2026-07-28'), '2026-07-28')).not.toThrow();
    expect(() => requireEra(on('2026-07-28', '2025-11-25'), '2026-07-28')).toThrow(
      'expected a turn on 2026-07-28 servers; its trace says 2026-07-28, 2025-11-25',
    );
    expect(() => requireEra({}, '2025-11-25')).toThrow('its trace says none');
  });
});
