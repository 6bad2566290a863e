// The application: a hash router over the views, one live stream for the whole page.

import { connect } from './live.js';
import * as experiments from './views/experiments.js';
import * as overview from './views/overview.js';
import * as trials from './views/trials.js';
import * as trial from './views/trial.js';
import * as metric from './views/metric.js';
import * as parallel from './views/parallel.js';
import * as platforms from './views/platforms.js';
import * as durations from './views/durations.js';
import * as config from './views/config.js';
import * as intermediate from './views/intermediate.js';
import * as compare from './views/compare.js';
import * as machines from './views/machines.js';
import { DARK } from './chart.js';

const routes = [
  [/^#?\/?$/, experiments, 'experiments'],
  [/^#\/experiments\/([^/]+)$/, overview, 'experiments'],
  [/^#\/experiments\/([^/]+)\/trials$/, trials, 'experiments'],
  [/^#\/experiments\/([^/]+)\/trials\/([^/]+)$/, trial, 'experiments'],
  [/^#\/experiments\/([^/]+)\/metric$/, metric, 'experiments'],
  [/^#\/experiments\/([^/]+)\/parallel$/, parallel, 'experiments'],
  [/^#\/experiments\/([^/]+)\/compare\/([^/]+)$/, compare, 'experiments'],
  [/^#\/experiments\/([^/]+)\/intermediate$/, intermediate, 'experiments'],
  [/^#\/experiments\/([^/]+)\/durations$/, durations, 'experiments'],
  [/^#\/experiments\/([^/]+)\/config$/, config, 'experiments'],
  [/^#\/platforms$/, platforms, 'platforms'],
  [/^#\/machines$/, machines, 'machines'],
];

let dispose = null;

function route() {
  if (dispose) {
    dispose();
    dispose = null;
  }
  const root = document.getElementById('view');
  const hash = location.hash || '#/';
  for (const [pattern, view, section] of routes) {
    const match = hash.match(pattern);
    if (match) {
      document.querySelectorAll('[data-nav]').forEach((a) => a.classList.toggle('current', a.dataset.nav === section));
      root.innerHTML = '';
      dispose = view.show(root, ...match.slice(1).map(decodeURIComponent)) || null;
      return;
    }
  }
  root.innerHTML = '<p class="problem">No such page.</p>';
}

window.addEventListener('hashchange', route);
// the charts take their theme when drawn: a change of the system's setting draws the view again
DARK.addEventListener('change', route);
connect();
route();
