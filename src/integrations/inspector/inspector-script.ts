/**
 * The inspector page's script, served as `inspector.js` (a file of its own so the page's CSP can
 * be `script-src 'self'`). Plain ES2020, no framework, no build step.
 *
 * Everything a server or a pin supplies (URIs, names, errors, content) is untrusted: it reaches
 * the page only through `textContent` and attribute setters, never through `innerHTML`.
 */
export const inspectorScript = String.raw`'use strict';
(function () {
  var token = new URLSearchParams(location.search).get('token') || '';
  var state = { options: { content: false, pinning: false }, servers: [], pins: [], turns: [] };
  var filter = '';

  function api(path) {
    return token ? path + (path.indexOf('?') < 0 ? '?' : '&') + 'token=' + encodeURIComponent(token) : path;
  }

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    for (var key in attributes || {}) {
      if (key === 'text') node.textContent = attributes[key];
      else if (key === 'onclick') node.addEventListener('click', attributes[key]);
      else node.setAttribute(key, attributes[key]);
    }
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function replace(id, children) {
    var target = document.getElementById(id);
    target.replaceChildren.apply(target, children);
  }

  function matches(uri) {
    return filter === '' || String(uri).toLowerCase().indexOf(filter) >= 0;
  }

  function request(method, path, body) {
    return fetch(api(path), {
      method: method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    }).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) throw new Error((json.error && json.error.message) || response.statusText);
        return json;
      });
    });
  }

  function renderServers() {
    var rows = state.servers.map(function (server) {
      var capabilities = Object.keys(server.capabilities || {}).join(', ');
      var error = server.lastError ? server.lastError.code + ': ' + server.lastError.message : '';
      return el('tr', { 'data-testid': 'server' }, [
        el('td', { text: server.server }),
        el('td', {}, [el('span', { class: 'state state-' + server.state, text: server.state })]),
        el('td', { text: server.transport || server.configuredTransport }),
        el('td', { text: server.protocolVersion || '' }),
        el('td', { text: capabilities }),
        el('td', { class: 'error', text: error }),
      ]);
    });
    replace('servers', rows);
  }

  function renderPins() {
    var groups = {};
    state.pins.forEach(function (pin) {
      var key = pin.scope.pipelineId !== undefined ? 'pipeline ' + pin.scope.pipelineId : 'conversation ' + pin.scope.conversationId;
      (groups[key] = groups[key] || []).push(pin);
    });
    var sections = Object.keys(groups).sort().map(function (key) {
      var items = groups[key].filter(function (pin) { return matches(pin.uri || pin.template); }).map(function (pin) {
        var target = pin.uri || pin.template + ' ' + JSON.stringify(pin.arguments);
        var item = el('li', { 'data-testid': 'pin' }, [
          el('span', { class: 'server', text: pin.server }),
          el('code', { text: target }),
          pin.maxTokens ? el('span', { class: 'muted', text: '≤ ' + pin.maxTokens + ' tokens' }) : null,
        ]);
        if (state.options.pinning) {
          item.appendChild(el('button', { 'data-testid': 'unpin', text: 'unpin', onclick: function () {
            request('DELETE', 'api/pins/' + encodeURIComponent(pin.id)).then(load, showError);
          } }));
        }
        return item;
      });
      return el('section', {}, [el('h3', { text: key }), el('ul', {}, items)]);
    });
    if (sections.length === 0) sections = [el('p', { class: 'muted', text: 'no pins' })];
    replace('pins', sections);
    document.getElementById('pin-form').hidden = !state.options.pinning;
  }

  function renderTurn(turn) {
    var trace = turn.trace;
    var entries = trace.entries.filter(function (entry) { return matches(entry.uri); });
    if (entries.length === 0 && filter !== '') return null;
    var used = trace.budget.usedTokens;
    var max = trace.budget.maxTokens;
    var percent = max > 0 ? Math.min(100, Math.round((used / max) * 100)) : 0;
    var fill = el('div', { class: 'budget-used', 'data-testid': 'budget-used' });
    // CSSOM, not a style attribute: the page's CSP allows no inline styles.
    fill.style.width = percent + '%';
    var bar = el('div', { class: 'budget', title: used + ' of ' + max + ' tokens' }, [fill]);
    var rows = entries.map(function (entry) {
      return el('tr', { 'data-testid': 'entry', 'data-status': entry.status }, [
        el('td', { text: entry.scope }),
        el('td', { text: entry.server }),
        el('td', {}, [el('code', { text: entry.uri })]),
        el('td', {}, [el('span', { class: 'status status-' + entry.status, text: entry.status })]),
        el('td', { class: 'number', text: String(entry.tokens) }),
        el('td', { class: 'number', text: String(entry.originalTokens) }),
        el('td', { text: entry.cache }),
        el('td', { text: entry.change || '' }),
        el('td', { class: 'error', text: entry.reason || (entry.error ? entry.error.code + ': ' + entry.error.message : '') }),
      ]);
    });
    var detail = el('pre', { class: 'context', 'data-testid': 'context', hidden: '' });
    var header = el('header', {}, [
      el('strong', { text: 'turn ' + trace.turnId }),
      el('span', { class: 'muted', text: ' pipeline ' + trace.pipelineId + (trace.conversationId !== undefined ? ' · conversation ' + trace.conversationId : '') }),
      el('span', { class: 'muted', text: ' · ' + trace.startedAt + ' · ' + Math.round(trace.durationMs) + ' ms · ' + used + ' / ' + max + ' tokens' }),
    ]);
    var card = el('article', { class: 'turn', 'data-testid': 'turn', 'data-turn-id': trace.turnId }, [
      header,
      bar,
      el('table', {}, [
        el('thead', {}, [el('tr', {}, ['scope', 'server', 'uri', 'status', 'tokens', 'original', 'cache', 'change', 'reason'].map(function (name) { return el('th', { text: name }); }))]),
        el('tbody', {}, rows),
      ]),
      detail,
    ]);
    header.addEventListener('click', function () {
      if (!detail.hidden) { detail.hidden = true; return; }
      detail.hidden = false;
      if (!state.options.content) { detail.textContent = 'content viewing is off (the host enables it with content: true)'; return; }
      detail.textContent = 'loading…';
      request('GET', 'api/turns/' + encodeURIComponent(trace.turnId) + '/context').then(function (json) {
        detail.textContent = json.text;
      }, function (error) { detail.textContent = String(error.message); });
    });
    return card;
  }

  function renderTurns() {
    var cards = state.turns.slice().reverse().map(renderTurn).filter(Boolean);
    if (cards.length === 0) cards = [el('p', { class: 'muted', text: 'no turns yet: they appear here as the provider runs them' })];
    replace('turns', cards);
  }

  function renderAll() {
    renderServers();
    renderPins();
    renderTurns();
  }

  function showError(error) {
    document.getElementById('message').textContent = String(error && error.message ? error.message : error);
  }

  function load() {
    return request('GET', 'api/state').then(function (json) {
      state = json;
      renderAll();
    }, showError);
  }

  document.getElementById('search').addEventListener('input', function (event) {
    filter = event.target.value.trim().toLowerCase();
    renderPins();
    renderTurns();
  });

  document.getElementById('pin-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var form = event.target;
    var kind = form.elements.kind.value;
    var scope = kind === 'pipeline' ? { pipelineId: form.elements.scope.value } : { conversationId: form.elements.scope.value };
    request('POST', 'api/pins', { scope: scope, server: form.elements.server.value, uri: form.elements.uri.value }).then(load, showError);
  });

  load().then(function () {
    var events = new EventSource(api('api/events'));
    events.addEventListener('turn', function (event) {
      state.turns.push(JSON.parse(event.data));
      if (state.turns.length > state.options.maxTurns) state.turns.shift();
      renderTurns();
    });
    events.addEventListener('servers', function (event) {
      state.servers = JSON.parse(event.data);
      renderServers();
    });
    events.addEventListener('pins', function () { load(); });
    events.addEventListener('open', function () { document.body.setAttribute('data-live', 'true'); });
  });
})();
`;
