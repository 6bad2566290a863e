// How long each trial ran (or has been running): a bar per started trial in sequence order, coloured
// by its status, as NNI's trial duration chart.

import { get, query, UI } from '../api.js';
import { chart } from '../chart.js';
import { duration } from '../format.js';
import { concerns, refresher, subscribe } from '../live.js';
import { experimentPage, problem } from './common.js';

const COLOURS = { RUNNING: '#1f6feb', SUCCEEDED: '#1a7f37', FAILED: '#cf222e', EARLY_STOPPED: '#8250df' };
const LIMIT = 1000;

export function show(root, id) {
  const content = experimentPage(root, id, '/durations');
  content.innerHTML = `
    <section class="card wide"><h2>Trial durations <span id="durations-note" class="muted"></span></h2>
      <div id="durations-chart" class="chart tall"></div></section>`;
  const box = content.querySelector('#durations-chart');
  const bars = chart(box);
  bars.instance.on('click', (event) => {
    const trial = event.data && event.data.trial;
    if (trial) {
      location.hash = `#/experiments/${encodeURIComponent(id)}/trials/${encodeURIComponent(trial)}`;
    }
  });

  const refresh = refresher(async () => {
    try {
      // the latest trials when there are more than a chart can show
      const page = await get(`${UI}/experiments/${encodeURIComponent(id)}/trials${query({ limit: LIMIT, sort: 'sequence', order: 'desc' })}`);
      const started = page.rows.filter((t) => t.durationMillis !== null).reverse();
      content.querySelector('#durations-note').textContent = page.all > LIMIT
        ? `(the latest ${LIMIT} of ${page.all} trials)` : `(${started.length} started of ${page.all})`;
      box.dataset.bars = started.length;
      box.dataset.trials = JSON.stringify(started.map((t) => [t.id, t.durationMillis]));
      bars.set({
        animation: false,
        grid: { left: 70, right: 30, top: 20, bottom: 50 },
        tooltip: { trigger: 'item', formatter: (p) => `trial ${p.data.trial} (#${p.data.sequence}): ${duration(p.data.value)} ${p.data.status}` },
        xAxis: { type: 'category', name: 'trial sequence', nameLocation: 'middle', nameGap: 28, data: started.map((t) => t.sequence) },
        yAxis: { type: 'value', name: 'seconds', axisLabel: { formatter: (v) => Math.round(v / 1000) } },
        series: [{ type: 'bar', data: started.map((t) => ({ value: t.durationMillis, trial: t.id, sequence: t.sequence, status: t.status,
          itemStyle: { color: COLOURS[t.status] || '#bc4c00' } })) }],
      }, { notMerge: true });
    } catch (e) {
      problem(content.querySelector('#durations-note'), e);
    }
  }, 2000);
  refresh();
  const unsubscribe = subscribe((message) => concerns(message, id, ['TRIAL']) && refresh());
  // running trials' bars grow without events
  const clock = setInterval(() => refresh(), 5000);
  return () => {
    unsubscribe();
    refresh.stop();
    clearInterval(clock);
    bars.dispose();
  };
}
