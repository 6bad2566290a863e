// Every trial's intermediate results on one chart, as NNI's "intermediate results" view: the latest
// trials that reported any (how many is chosen), narrowed by a filter on the trial id or a
// parameter written name=value; a line per trial, its legend entry its sequence number.

import { get, query, UI } from '../api.js';
import { chart } from '../chart.js';
import { number } from '../format.js';
import { concerns, refresher, subscribe } from '../live.js';
import { experimentPage, problem } from './common.js';

const COUNTS = [10, 20, 50, 100, 200];

export function show(root, id) {
  const content = experimentPage(root, id, '/intermediate');
  const state = { last: 20, q: '' };
  content.innerHTML = `
    <div class="toolbar">
      <label>Filter <input id="curve-filter" type="search" placeholder="trial id or parameter, e.g. lr=0.01"></label>
      <label>Trials <select id="curve-count">${COUNTS.map((n) => `<option ${n === state.last ? 'selected' : ''}>${n}</option>`).join('')}</select></label>
      <span id="curves-note" class="muted"></span>
    </div>
    <section class="card wide"><div id="curves-chart" class="chart tall"></div></section>`;
  const box = content.querySelector('#curves-chart');
  const lines = chart(box);
  lines.instance.on('click', (event) => {
    if (event.seriesId) {
      location.hash = `#/experiments/${encodeURIComponent(id)}/trials/${encodeURIComponent(event.seriesId)}`;
    }
  });

  const refresh = refresher(async () => {
    try {
      const data = await get(`${UI}/experiments/${encodeURIComponent(id)}/intermediate${query(state)}`);
      content.querySelector('#curves-note').textContent = `${data.shown} of ${data.total} trials with intermediate results`;
      box.dataset.curves = JSON.stringify(data.trials.map((t) => t.id));
      lines.set(curves(data.trials), { notMerge: true });
    } catch (e) {
      problem(content.querySelector('#curves-note'), e);
    }
  }, 2000);
  let typing = null;
  content.querySelector('#curve-filter').addEventListener('input', (event) => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      state.q = event.target.value.trim();
      refresh.now();
    }, 250);
  });
  content.querySelector('#curve-count').addEventListener('change', (event) => {
    state.last = Number(event.target.value);
    refresh.now();
  });
  refresh();
  const unsubscribe = subscribe((message) => concerns(message, id, ['TRIAL', 'METRICS']) && refresh());
  return () => {
    unsubscribe();
    refresh.stop();
    clearTimeout(typing);
    lines.dispose();
  };
}

/** The chart's option for these trials' curves, a series per trial (its id the series id). */
export function curves(trials) {
  return {
    animation: false,
    grid: { left: 60, right: 30, top: 50, bottom: 45 },
    legend: { type: 'scroll', top: 5 },
    tooltip: { trigger: 'item', formatter: (p) => `trial ${p.seriesId} (${p.seriesName}): report ${p.data[0]}, ${number(p.data[1])}` },
    xAxis: { type: 'value', name: 'report', nameLocation: 'middle', nameGap: 26, minInterval: 1 },
    yAxis: { type: 'value', scale: true },
    series: trials.map((t) => ({
      id: t.id, name: `#${t.sequence}`, type: 'line', showSymbol: t.intermediate.points.length < 60,
      data: t.intermediate.points.map(([x, y]) => [x, y === 'NaN' ? null : y]),
    })),
  };
}
