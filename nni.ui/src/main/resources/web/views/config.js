// The experiment's configuration as the user gave it (the file's text, kept at create) beside the
// form the runtime holds (canonical, NNI's field names), secrets masked in both, and its export: every trial as CSV or JSON and the configuration as JSON, made in the
// browser from one read of the server's export; every metric as CSV or JSON, streamed by the server
// (an experiment can hold millions).

import { get, UI } from '../api.js';
import { escape } from '../format.js';
import { experimentPage, problem } from './common.js';

export function show(root, id) {
  const content = experimentPage(root, id, '/config');
  content.innerHTML = `
    <section class="card wide"><h2>Export</h2>
      <p id="export-links" class="links muted">Loading…</p></section>
    <div class="config-pair">
      <section class="card"><h2>As given <span class="muted" id="given-name"></span></h2>
        <pre id="given-view" class="config"></pre></section>
      <section class="card"><h2>Configuration <span class="muted">(canonical; secrets masked)</span></h2>
        <pre id="config-view" class="config"></pre></section>
    </div>`;
  const links = content.querySelector('#export-links');
  const urls = [];
  get(`${UI}/experiments/${encodeURIComponent(id)}/export`).then((data) => {
    content.querySelector('#config-view').textContent = JSON.stringify(data.config, null, 2);
    const given = content.querySelector('#given-view');
    if (data.given) {
      content.querySelector('#given-name').textContent = `(${data.given.file}; secrets masked)`;
      given.textContent = data.given.text;
    } else {
      given.outerHTML = '<p id="given-view" class="muted">Not kept: the experiment was created before this runtime kept the file as given.</p>';
    }
    const files = [
      ['trials.csv', 'text/csv', trialsCsv(data)],
      ['trials.json', 'application/json', JSON.stringify(data.trials, null, 2)],
      ['config.json', 'application/json', JSON.stringify(data.config, null, 2)],
    ];
    if (data.given) {
      files.push([`as-given-${data.given.file}`, 'text/plain', data.given.text, 'config-given']);
    }
    links.className = 'links';
    links.innerHTML = files.map(([name, type, text, key]) => {
      const url = URL.createObjectURL(new Blob([text], { type }));
      urls.push(url);
      return `<a href="${url}" download="${escape(id)}-${escape(name)}" data-export="${escape(key ?? name)}">${escape(name)}</a>`;
    }).join(' ') + ' ' + data.metricFiles.map((name) =>
      `<a href="${UI}/experiments/${encodeURIComponent(id)}/export/${name}" download="${escape(id)}-${name}" data-export="${name}">${name}</a>`).join(' ')
      + ` <span class="muted">(${data.trials.length} trials)</span>`;
  }, (e) => problem(links, e));
  return () => urls.forEach((url) => URL.revokeObjectURL(url));
}

/** One row per trial: its id, sequence, status, a column per parameter, the final result, times. */
function trialsCsv(data) {
  const head = ['trialId', 'sequence', 'status', ...data.parameters, 'default', 'startTime', 'endTime', 'durationMillis',
    'platform', 'machine', 'message'];
  const rows = data.trials.map((t) => [t.id, t.sequence, t.status, ...data.parameters.map((n) => t.parameters[n]),
    t.default, iso(t.startTime), iso(t.endTime), t.durationMillis, t.platform, t.machine, t.message]);
  return csv([head, ...rows]);
}

function iso(millis) {
  return millis ? new Date(millis).toISOString() : null;
}

/** RFC 4180: a field with a comma, quote or line break quoted, its quotes doubled; objects as JSON. */
function csv(rows) {
  const field = (v) => {
    if (v === null || v === undefined) {
      return '';
    }
    const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return rows.map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
