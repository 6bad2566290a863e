// The default metric of every trial over its sequence, with the best result so far; the server thins
// the points (the lowest and highest of each stretch) so a chart of any size stays quick.

import { get, UI } from '../api.js';
import { chart } from '../chart.js';
import { number } from '../format.js';
import { concerns, refresher, subscribe } from '../live.js';
import { experimentPage, problem } from './common.js';

export function show(root, id) {
  const content = experimentPage(root, id, '/metric');
  content.innerHTML = `
    <section class="card wide"><h2>Default metric <span id="metric-note" class="muted"></span></h2>
      <div id="metric-chart" class="chart tall"></div></section>`;
  const box = content.querySelector('#metric-chart');
  const scatter = chart(box);
  scatter.instance.on('click', (event) => {
    const trial = event.data && event.data[2];
    if (trial) {
      location.hash = `#/experiments/${encodeURIComponent(id)}/trials/${encodeURIComponent(trial)}`;
    }
  });

  const refresh = refresher(async () => {
    try {
      const results = await get(`${UI}/experiments/${encodeURIComponent(id)}/results`);
      const last = results.points.length ? results.points[results.points.length - 1][0] : 0;
      // the best-so-far line steps at each improvement and runs on to the last trial
      const best = results.best.length ? [...results.best, [last, results.best[results.best.length - 1][1], null]] : [];
      content.querySelector('#metric-note').textContent = results.total > results.points.length
        ? `(${results.points.length} of ${results.total} trials shown; ${results.optimizeMode})`
        : `(${results.total} trials; ${results.optimizeMode})`;
      box.dataset.points = results.points.length;
      scatter.set({
        animation: false,
        grid: { left: 70, right: 30, top: 40, bottom: 50 },
        legend: { data: ['trial', 'best so far'] },
        tooltip: { trigger: 'item', formatter: (p) => p.data[2] ? `trial ${p.data[2]} (#${p.data[0]}): ${number(p.data[1])}` : '' },
        xAxis: { type: 'value', name: 'trial sequence', nameLocation: 'middle', nameGap: 28, minInterval: 1 },
        yAxis: { type: 'value', name: 'default metric', scale: true },
        series: [
          { name: 'trial', type: 'scatter', symbolSize: 7, data: results.points, large: results.points.length > 2000 },
          { name: 'best so far', type: 'line', step: 'end', showSymbol: false, data: best, lineStyle: { width: 2 } },
        ],
      });
    } catch (e) {
      problem(content.querySelector('#metric-note'), e);
    }
  }, 2000);
  refresh();
  const unsubscribe = subscribe((message) => concerns(message, id, ['TRIAL', 'METRICS']) && refresh());
  return () => {
    unsubscribe();
    refresh.stop();
    scatter.dispose();
  };
}
