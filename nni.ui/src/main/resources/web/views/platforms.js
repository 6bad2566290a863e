// The installed platform bundles (name, bundle, version, state, sessions, and how each session's trials report:
// http or files, and why) and each platform
// component's configuration as a form generated from its Metatype, saved through Config Admin.

import { get, query, send, UI } from '../api.js';
import { escape } from '../format.js';
import { refresher, subscribe } from '../live.js';
import { problem } from './common.js';

export function show(root) {
  root.innerHTML = `
    <div class="page-head"><h1>Platforms</h1></div>
    <div id="platforms"><p class="muted">Loading…</p></div>
    <div id="forms"></div>`;
  const list = root.querySelector('#platforms');
  const forms = root.querySelector('#forms');
  // what the user typed and has not saved yet survives a refresh
  const edits = new Map();
  const notes = new Map();

  const refresh = refresher(async () => {
    try {
      const answer = await get(`${UI}/platforms`);
      renderList(list, answer);
      renderForms(forms, answer, edits, notes, refresh);
    } catch (e) {
      problem(list, e);
    }
  }, 1000);
  refresh();
  const unsubscribe = subscribe((message) => (message.type === 'platforms' || message.type === 'reset') && refresh());
  return () => {
    unsubscribe();
    refresh.stop();
  };
}

function key(platform) {
  return `${platform.name}@${platform.bundle}`;
}

function renderList(list, answer) {
  list.innerHTML = `
    <table class="grid" id="platforms-table">
      <thead><tr><th>Platform</th><th>Bundle</th><th>Version</th><th>State</th><th class="num">Sessions</th></tr></thead>
      <tbody>${answer.platforms.map((p) => `
        <tr data-platform="${escape(p.name)}"><td><a href="#/platforms" data-goto="${escape(key(p))}">${escape(p.name)}</a></td>
          <td>${escape(p.bundle)}</td><td>${escape(p.version)}</td><td>${escape(p.state)}</td>
          <td class="num" data-sessions>${p.sessions}</td></tr>${(p.reports ?? []).map((r) => `
        <tr class="reports" data-reports="${escape(p.name)}" data-experiment="${escape(r.experiment)}"><td></td>
          <td colspan="4" class="muted small">experiment <a href="#/experiments/${encodeURIComponent(r.experiment)}">${escape(r.experiment)}</a>
            reports over <strong data-transport>${escape(r.transport)}</strong>: <span data-why>${escape(r.why)}</span></td></tr>`).join('')}`).join('')}
      </tbody>
    </table>
    ${answer.forms ? '' : '<p class="problem">The Metatype service is not installed (bundle org.apache.felix.metatype): configurations cannot be shown as forms.</p>'}`;
  list.querySelectorAll('a[data-goto]').forEach((a) => a.addEventListener('click', (event) => {
    event.preventDefault();
    document.getElementById(`form-${a.dataset.goto}`)?.scrollIntoView({ behavior: 'smooth' });
  }));
}

function renderForms(box, answer, edits, notes, refresh) {
  box.innerHTML = answer.platforms.filter((p) => p.configuration).map((p) => {
    const c = p.configuration;
    const k = key(p);
    return `
    <section class="card wide platform-form" id="form-${escape(k)}" data-platform="${escape(p.name)}" data-pid="${escape(c.pid)}">
      <h2>${escape(p.name)} <span class="muted">configuration ${escape(c.pid)}</span></h2>
      <p>${escape(c.description ?? '')}</p>
      <p class="muted">${c.file ? `Kept in ${escape(c.file)}, read at every start; saving here rewrites it.`
        : 'Saving keeps it in etc/ of the runtime\'s home, read at every start.'}</p>
      ${p.sessions ? `<p class="warning">Saving restarts this platform: the ${p.sessions} experiment(s) using it lose their running trials
        (SYS_CANCELED) and go on with new ones.</p>` : ''}
      ${c.attributes.length ? `<form data-key="${escape(k)}" autocomplete="off">
        <table class="form">${c.attributes.map((a) => field(k, a, edits)).join('')}</table>
        <p><button type="submit">Save</button> <span class="form-note ${notes.get(k)?.problem ? 'problem' : 'muted'}">${escape(notes.get(k)?.text ?? '')}</span></p>
      </form>` : '<p class="muted">This platform has no settings of its own: its experiments say everything.</p>'}
    </section>`;
  }).join('');
  box.querySelectorAll('form[data-key]').forEach((form) => {
    const k = form.dataset.key;
    const platform = answer.platforms.find((p) => key(p) === k);
    form.addEventListener('input', (event) => {
      const input = event.target;
      const typed = edits.get(k) || {};
      typed[input.name] = input.type === 'checkbox' ? String(input.checked) : input.value;
      edits.set(k, typed);
    });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const values = {};
      for (const a of platform.configuration.attributes) {
        const input = form.elements[a.id];
        if (!input) {
          continue;
        }
        const v = input.type === 'checkbox' ? String(input.checked) : input.value;
        if (a.secret && v === '') {
          continue; // left empty: the secret stays as it is
        }
        values[a.id] = v;
      }
      try {
        await send('PUT', `${UI}/platforms/${encodeURIComponent(platform.name)}/configuration${query({ bundle: platform.bundle })}`, { values });
        edits.delete(k);
        notes.set(k, { text: 'Saved. The platform restarts with it in a moment ("in effect" follows).' });
      } catch (e) {
        notes.set(k, { text: e.message, problem: true });
      }
      refresh.now();
    });
  });
}

function field(k, a, edits) {
  const typed = edits.get(k)?.[a.id];
  const current = typed ?? a.saved ?? a.default ?? '';
  const id = `field-${k}-${a.id}`;
  let input;
  if (a.type === 'boolean') {
    input = `<input type="checkbox" name="${escape(a.id)}" id="${escape(id)}" ${String(current) === 'true' ? 'checked' : ''}>`;
  } else if (a.options.length) {
    input = `<select name="${escape(a.id)}" id="${escape(id)}">${a.options.map((o) =>
      `<option value="${escape(o.value)}" ${o.value === String(current) ? 'selected' : ''}>${escape(o.label)}</option>`).join('')}</select>`;
  } else if (a.secret) {
    input = `<input type="password" name="${escape(a.id)}" id="${escape(id)}" value="${escape(typed ?? '')}"
      placeholder="${a.saved ? 'set; leave empty to keep it' : 'not set'}">`;
  } else {
    input = `<input type="${a.type === 'integer' || a.type === 'number' ? 'number' : 'text'}" ${a.type === 'number' ? 'step="any"' : ''}
      name="${escape(a.id)}" id="${escape(id)}" value="${escape(current)}">`;
  }
  const effective = a.secret ? (a.effective ? 'set' : 'not set') : a.effective ?? '–';
  return `<tr>
    <th><label for="${escape(id)}">${escape(a.name)}</label><div class="muted small">${escape(a.id)}</div></th>
    <td>${input}<div class="muted small">${escape(a.description ?? '')}</div></td>
    <td class="effective">in effect: <span data-effective="${escape(a.id)}">${escape(effective)}</span></td>
  </tr>`;
}
