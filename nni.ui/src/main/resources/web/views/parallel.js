// Hyper-parameter parallel coordinates: an axis per parameter and one for the default metric, a line
// per trial with a final result, coloured by the metric. Drag along an axis to keep only the lines
// through that range (brushing); several axes combine.

import { get, UI } from '../api.js';
import { chart } from '../chart.js';
import { number } from '../format.js';
import { concerns, refresher, subscribe } from '../live.js';
import { experimentPage, problem } from './common.js';

export function show(root, id) {
  const content = experimentPage(root, id, '/parallel');
  content.innerHTML = `
    <section class="card wide"><h2>Hyper-parameters <span id="parallel-note" class="muted"></span></h2>
      <p class="muted">Drag along an axis to select a range; click outside a range to clear it.</p>
      <div class="with-legend"><div id="parallel-chart" class="chart tall"></div>
        <div id="parallel-legend" class="legend" hidden><span class="legend-max"></span><span class="legend-scale"></span>
          <span class="legend-min"></span></div></div>
      <p id="parallel-selection" class="muted"></p></section>`;
  const box = content.querySelector('#parallel-chart');
  const parallel = chart(box);
  let rows = [];

  parallel.instance.on('axisareaselected', () => {
    const series = parallel.instance.getModel().getSeriesByIndex(0);
    const active = series ? series.getRawIndicesByActiveState('active') : [];
    content.querySelector('#parallel-selection').textContent = active.length < rows.length
      ? `${active.length} of ${rows.length} trials in the selected ranges` : '';
  });
  // what ECharts drew: its own count of the lines it laid out
  parallel.instance.on('finished', () => {
    const series = parallel.instance.getModel().getSeriesByIndex(0);
    box.dataset.lines = series ? series.getData().count() : 0;
    box.dataset.axes = JSON.stringify((parallel.instance.getOption().parallelAxis || []).map((axis) => axis.name));
  });

  const refresh = refresher(async () => {
    try {
      const data = await get(`${UI}/experiments/${encodeURIComponent(id)}/parallel`);
      rows = data.rows;
      const metric = data.axes.length;
      const values = rows.map((r) => r[metric]);
      const axes = data.axes.map((axis, dim) => ({
        dim,
        name: axis.name,
        type: axis.type === 'category' ? 'category' : axis.type === 'log' ? 'log' : 'value',
        data: axis.type === 'category' ? axis.values : undefined,
        min: axis.type !== 'category' ? axis.min : undefined,
        max: axis.type !== 'category' ? axis.max : undefined,
        scale: true,
      }));
      axes.push({ dim: metric, name: 'default metric', type: 'value', scale: true, nameTextStyle: { fontWeight: 'bold' } });
      const min = values.length ? Math.min(...values) : 0;
      const max = values.length ? Math.max(...values) : 0;
      // the best results red, whichever way the experiment optimizes
      const colours = data.optimizeMode === 'minimize' ? ['#d94e5d', '#eac736', '#50a3ba'] : ['#50a3ba', '#eac736', '#d94e5d'];
      legend(content.querySelector('#parallel-legend'), values.length > 0, min, max, colours);
      content.querySelector('#parallel-note').textContent = `(${rows.length} trials with a final result; ${data.optimizeMode})`;
      parallel.set({
        animation: false,
        parallel: { left: 60, right: 90, top: 50, bottom: 40 },
        parallelAxis: axes,
        // the colour scale is drawn beside the chart (legend()), on the data's own range: ECharts' own
        // labels round to whole numbers, so a metric between 0 and 1 read "0 .. 1" whatever it was
        visualMap: values.length ? {
          type: 'continuous', dimension: metric, min, max, show: false, inRange: { color: colours },
        } : undefined,
        series: [{ type: 'parallel', lineStyle: { width: 1.5, opacity: 0.6 }, inactiveOpacity: 0.03, activeOpacity: 1,
          progressive: 2000, data: rows.map((r) => r.slice(0, metric + 1)) }],
      }, { notMerge: true });
    } catch (e) {
      problem(content.querySelector('#parallel-note'), e);
    }
  }, 3000);
  refresh();
  const unsubscribe = subscribe((message) => concerns(message, id, ['TRIAL', 'METRICS']) && refresh());
  return () => {
    unsubscribe();
    refresh.stop();
    parallel.dispose();
  };
}

/** The colour scale of the lines, labelled with the lowest and highest default metric. */
function legend(box, shown, min, max, colours) {
  box.hidden = !shown;
  box.querySelector('.legend-max').textContent = number(max);
  box.querySelector('.legend-min').textContent = number(min);
  box.querySelector('.legend-scale').style.background = `linear-gradient(to top, ${colours.join(', ')})`;
}
