// Every experiment in the store: status (how it ended, for one not open), platform, trials counted, best metric,
// start, duration.

import { get, UI } from '../api.js';
import { duration, escape, number, status, time } from '../format.js';
import { refresher, subscribe } from '../live.js';
import { problem } from './common.js';

export function show(root) {
  root.innerHTML = `
    <div class="page-head"><h1>Experiments</h1></div>
    <div id="experiments"><p class="muted">Loading…</p></div>`;
  const box = root.querySelector('#experiments');

  const refresh = refresher(async () => {
    try {
      render(box, await get(`${UI}/experiments`));
    } catch (e) {
      problem(box, e);
    }
  }, 1000);
  refresh();
  const unsubscribe = subscribe((message) => {
    if (message.type === 'reset' || message.type === 'experiment') {
      refresh();
    }
  });
  return () => {
    unsubscribe();
    refresh.stop();
  };
}

function render(box, rows) {
  if (!rows.length) {
    box.innerHTML = `<p class="muted">No experiments yet. Run one:
      <code>java -jar nni-osgi.jar run config.yml</code>, or <code>nni:create config.yml</code> in the console.</p>`;
    return;
  }
  box.innerHTML = `
    <table class="grid" id="experiments-table">
      <thead><tr><th>Experiment</th><th>Name</th><th>Status</th><th>Platform</th><th class="num">Trials</th>
        <th class="num">Best</th><th>Started</th><th class="num">Duration</th></tr></thead>
      <tbody>${rows.map((e) => `
        <tr data-id="${escape(e.id)}">
          <td><a href="#/experiments/${encodeURIComponent(e.id)}">${escape(e.id)}</a></td>
          <td>${escape(e.name ?? '')}</td>
          <td>${status(e.status)}${e.open ? '' : ' <span class="muted">(not open)</span>'}</td>
          <td>${escape(e.platform ?? '–')}</td>
          <td class="trial-counts">${escape(e.trials.text)}</td>
          <td class="num">${number(e.best)} <span class="muted">${e.optimizeMode === 'minimize' ? '↓' : '↑'}</span></td>
          <td>${time(e.startTime)}</td>
          <td class="num">${duration(e.durationMillis)}</td>
        </tr>`).join('')}
      </tbody>
    </table>`;
}
