// Pieces the experiment pages share: their header with tabs, and a place for messages.

import { get, UI } from '../api.js';
import { escape, status } from '../format.js';

const TABS = [
  ['', 'Overview'],
  ['/trials', 'Trials'],
  ['/metric', 'Default metric'],
  ['/parallel', 'Hyper-parameters'],
  ['/intermediate', 'Intermediate'],
  ['/durations', 'Durations'],
  ['/config', 'Config & export'],
];

/** Writes the header of an experiment page and returns the element below it for the page's content. */
export function experimentPage(root, id, current) {
  root.innerHTML = `
    <div class="page-head">
      <h1><a href="#/">Experiments</a> / <span id="experiment-title">${escape(id)}</span>
        <span id="experiment-status"></span></h1>
      <nav class="tabs">${TABS.map(([path, label]) =>
        `<a href="#/experiments/${encodeURIComponent(id)}${path}" class="${path === current ? 'current' : ''}">${label}</a>`).join('')}</nav>
    </div>
    <div id="content"></div>`;
  if (current !== '') {
    // the overview keeps its header up to date itself; the other pages name the experiment once
    get(`${UI}/experiments/${encodeURIComponent(id)}`).then((experiment) => experimentTitle(root, experiment), () => {});
  }
  return root.querySelector('#content');
}

/** Shows an experiment's name and status in the page header. */
export function experimentTitle(root, experiment) {
  const title = root.querySelector('#experiment-title');
  if (title) {
    title.textContent = experiment.name ? `${experiment.name} (${experiment.id})` : experiment.id;
  }
  const badge = root.querySelector('#experiment-status');
  if (badge) {
    badge.innerHTML = status(experiment.status);
  }
}

export function problem(element, error) {
  element.innerHTML = `<p class="problem">${escape(error.message || error)}</p>`;
}
