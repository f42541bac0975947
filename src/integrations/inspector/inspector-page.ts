import { type StatusTone, statusTones } from '../../mcp/status-tone.js';

/** The inspector's HTML shell: static, nothing interpolated; the script fills it from the API. */
export const inspectorHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>mcp-context inspector</title>
<link rel="stylesheet" href="inspector.css">
</head>
<body>
<header class="top">
  <h1>mcp-context inspector</h1>
  <input id="search" type="search" placeholder="search by URI" aria-label="search by URI" data-testid="search">
  <span id="message" class="error" role="status"></span>
</header>
<main>
  <section>
    <h2>Servers</h2>
    <table>
      <thead><tr><th>server</th><th>state</th><th>transport</th><th>protocol</th><th>capabilities</th><th>last error</th></tr></thead>
      <tbody id="servers"></tbody>
    </table>
  </section>
  <section>
    <h2>Pins</h2>
    <div id="pins"></div>
    <form id="pin-form" hidden>
      <select name="kind" aria-label="scope kind"><option>pipeline</option><option>conversation</option></select>
      <input name="scope" placeholder="pipeline or conversation id" required>
      <input name="server" placeholder="server" required>
      <input name="uri" placeholder="resource URI" required>
      <button type="submit">pin</button>
    </form>
  </section>
  <section>
    <h2>Turns <small class="muted">live, newest first; click a turn's header for its context</small></h2>
    <div id="turns"></div>
  </section>
</main>
<script src="inspector.js"></script>
</body>
</html>
`;

export const inspectorCss = `
[hidden] { display: none !important; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f6f7f9; }
.top { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem; background: #1d232a; color: #fff; }
.top h1 { font-size: 1.05rem; margin: 0; }
#search { flex: 0 1 22rem; padding: .3rem .5rem; border-radius: 4px; border: 0; }
main { padding: .5rem 1rem 2rem; }
h2 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
h3 { font-size: .9rem; margin: .6rem 0 .2rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
th { font-weight: 600; font-size: .8rem; color: #555; }
code { font-size: .85rem; word-break: break-all; }
ul { margin: 0; padding-left: 1.2rem; }
li { margin: .15rem 0; }
li > * { margin-right: .5rem; }
.muted { color: #6b7580; font-weight: normal; }
.error { color: #b3261e; }
.number { text-align: right; font-variant-numeric: tabular-nums; }
.server { font-weight: 600; }
.state, .status { padding: 0 .35rem; border-radius: 3px; font-size: .8rem; background: #e3e6ea; }
${badgeRule('good', '#d5f0dc')}
${badgeRule('warn', '#fbeccb')}
${badgeRule('bad', '#f8d7d5')}
.turn { background: #fff; margin: .6rem 0; border: 1px solid #e3e6ea; border-radius: 6px; }
.turn td:nth-child(3) { width: 38%; }
.turn > header { padding: .4rem .6rem; cursor: pointer; }
.budget { height: 6px; background: #e3e6ea; margin: 0 .6rem .4rem; border-radius: 3px; overflow: hidden; }
.budget-used { height: 100%; background: #2f6fdf; }
.context { margin: 0; padding: .6rem; background: #11161c; color: #e8eaed; white-space: pre-wrap; max-height: 30rem; overflow: auto; }
form { margin-top: .5rem; display: flex; gap: .4rem; }
`;

// --- Internal helpers ---

/** One background for the badges of every status and state of a tone (`statusTones`). */
function badgeRule(tone: StatusTone, background: string): string {
  const names = Object.keys(statusTones).filter(
    (name) => statusTones[name as keyof typeof statusTones] === tone,
  );
  return `${names.flatMap((name) => [`.state-${name}`, `.status-${name}`]).join(', ')} { background: ${background}; }`;
}
