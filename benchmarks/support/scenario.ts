/** A scenario's figures: one flat record, written under the scenario's key in the results file. */
export type Figures = Record<string, number | string | boolean>;

/** How a scenario appears in the README's table, built from its figures by `npm run bench:readme`. */
export interface ReadmeRow {
  /** What is measured, in a few words. */
  readonly what: string;
  /** The result, from the figures (markdown). */
  result(figures: Figures): string;
  /** The target, in a few words (the ✅/❌ comes from `figures.met`). */
  readonly target: string;
}

/** What every file in benchmarks/scenarios/ exports. */
export interface ScenarioModule {
  run(options: { quick: boolean }): Promise<Figures>;
  readonly readme: ReadmeRow;
}
