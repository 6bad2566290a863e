// Chosen trials side by side (2 to 10, picked in the trial table): their status, final result and
// every parameter in a column each, the parameters that differ marked, and their intermediate
// results overlaid on one chart.

import { get, query, UI } from '../api.js';
import { chart } from '../chart.js';
import { duration, escape, number, status, value } from '../format.js';
import { concerns, refresher, subscribe } from '../live.js';
import { experimentPage, problem } from './common.js';
import { curves } from './intermediate.js';

export function show(root, id, list) {
  const content = experimentPage(root, id, '/trials');
  const ids = list.split(',').filter((t) => t);
  content.innerHTML = `
    <div class="page-sub"><h2>Comparing ${ids.length} trials</h2>
      <a href="#/experiments/${encodeURIComponent(id)}/trials">back to the table</a></div>
    <div id="compare-table" class="scroll"><p class="muted">Loading…</p></div>
    <section class="card wide"><h2>Intermediate results</h2><div id="compare-chart" class="chart"></div></section>`;
  const box = content.querySelector('#compare-chart');
  const lines = chart(box);

  const refresh = refresher(async () => {
    try {
      const data = await get(`${UI}/experiments/${encodeURIComponent(id)}/intermediate${query({ trials: ids.join(',') })}`);
      render(content.querySelector('#compare-table'), id, data.trials);
      box.dataset.curves = JSON.stringify(data.trials.map((t) => t.id));
      lines.set(curves(data.trials), { notMerge: true });
    } catch (e) {
      problem(content.querySelector('#compare-table'), e);
    }
  }, 2000);
  refresh();
  const unsubscribe = subscribe((message) => concerns(message, id, ['TRIAL', 'METRICS']) && refresh());
  return () => {
    unsubscribe();
    refresh.stop();
    lines.dispose();
  };
}

function render(box, id, trials) {
  const names = [...new Set(trials.flatMap((t) => Object.keys(t.parameters || {})))];
  const differs = (name) => new Set(trials.map((t) => JSON.stringify((t.parameters || {})[name]))).size > 1;
  box.innerHTML = `
    <table class="grid compare" id="comparison">
      <thead><tr><th></th>${trials.map((t) => `<th data-trial="${escape(t.id)}">
        <a href="#/experiments/${encodeURIComponent(id)}/trials/${encodeURIComponent(t.id)}">#${t.sequence} ${escape(t.id)}</a></th>`).join('')}</tr></thead>
      <tbody>
        <tr><th>Status</th>${trials.map((t) => `<td>${status(t.status)}</td>`).join('')}</tr>
        <tr><th>Default metric</th>${trials.map((t) => `<td class="num" data-row="default">${number(t.default)}</td>`).join('')}</tr>
        <tr><th>Intermediate results</th>${trials.map((t) => `<td class="num">${t.intermediate.total}</td>`).join('')}</tr>
        ${names.map((name) => `<tr data-parameter="${escape(name)}" class="${differs(name) ? 'differs' : ''}"><th>${escape(name)}</th>
          ${trials.map((t) => `<td class="num">${escape(value((t.parameters || {})[name]))}</td>`).join('')}</tr>`).join('')}
      </tbody>
    </table>`;
}
