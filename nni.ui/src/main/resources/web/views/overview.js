// An experiment at a glance: status and why, progress, best trials, elapsed and left, and the limits
// nnictl update changes, saved through NNI's REST API (PUT /experiment?update_type=...).

import { get, NNI, send, UI, query } from '../api.js';
import { duration, escape, number, status, value } from '../format.js';
import { concerns, refresher, subscribe } from '../live.js';
import { experimentPage, experimentTitle, problem } from './common.js';

const LIMITS = [
  ['trialConcurrency', 'TRIAL_CONCURRENCY', 'Concurrency', 'number'],
  ['maxTrialNumber', 'MAX_TRIAL_NUM', 'Max trials', 'number'],
  ['maxExperimentDuration', 'MAX_EXEC_DURATION', 'Max duration', 'text'],
];

export function show(root, id) {
  const content = experimentPage(root, id, '');
  content.innerHTML = `
    <div class="cards">
      <section class="card" id="status-card"><h2>Status</h2><div id="status-body" class="muted">Loading…</div></section>
      <section class="card" id="progress-card"><h2>Progress</h2><div id="progress-body"></div></section>
      <section class="card" id="limits-card"><h2>Limits</h2><form id="limits" autocomplete="off"></form>
        <p id="limits-message" class="muted"></p></section>
    </div>
    <section class="card wide"><h2>Best trials</h2><div id="best"></div></section>`;
  let limitsShown = false;

  const refresh = refresher(async () => {
    try {
      const experiment = await get(`${UI}/experiments/${encodeURIComponent(id)}`);
      experimentTitle(root, experiment);
      renderStatus(content, experiment);
      renderProgress(content, experiment);
      renderBest(content, experiment);
      // a form being edited is left alone; its fields show the saved values otherwise
      if (!limitsShown || !content.querySelector('#limits').matches(':focus-within')) {
        renderLimits(content, experiment, id, refresh);
        limitsShown = true;
      }
    } catch (e) {
      problem(content.querySelector('#status-body'), e);
    }
  }, 1000);
  refresh();
  const unsubscribe = subscribe((message) => concerns(message, id) && refresh());
  // elapsed time moves on without events
  const clock = setInterval(() => {
    const elapsed = content.querySelector('#elapsed');
    if (elapsed && elapsed.dataset.counting === 'true') {
      elapsed.textContent = duration(Number(elapsed.dataset.millis) + Date.now() - Number(elapsed.dataset.at));
    }
  }, 1000);
  return () => {
    unsubscribe();
    refresh.stop();
    clearInterval(clock);
  };
}

const COUNTING = ['RUNNING', 'NO_MORE_TRIAL', 'TUNER_NO_MORE_TRIAL'];

function renderStatus(content, e) {
  content.querySelector('#status-body').innerHTML = `
    <p class="big">${status(e.status)}</p>
    ${e.message ? `<p class="notice" id="experiment-message">${escape(e.message)}</p>` : ''}
    ${e.errors.length > 1 ? `<details><summary>${e.errors.length} errors</summary><ul>${e.errors.map((x) => `<li>${escape(x)}</li>`).join('')}</ul></details>` : ''}
    <dl class="facts">
      <dt>Platform</dt><dd>${escape(e.platform)}</dd>
      <dt>Tuner</dt><dd>${escape(e.tuner ?? '–')}${e.assessor ? ` · assessor ${escape(e.assessor)}` : ''} (${escape(e.optimizeMode)})</dd>
      <dt>Elapsed</dt><dd id="elapsed" data-millis="${e.elapsedMillis}" data-at="${Date.now()}"
          data-counting="${COUNTING.includes(e.status)}">${duration(e.elapsedMillis)}</dd>
      <dt>Left</dt><dd id="left">${e.leftMillis === null ? 'unknown' : duration(e.leftMillis)}</dd>
      <dt>Folder</dt><dd class="path">${escape(e.directory)}</dd>
    </dl>`;
}

// the server counts (TrialCounts): the same words as run's progress line, nni:top and nni:experiments
const COUNTS = [
  ['succeeded', 'Succeeded'], ['failed', 'Failed'], ['stoppedEarly', 'Stopped early'], ['cancelled', 'Cancelled'],
  ['running', 'Running'], ['waiting', 'Waiting'],
];

function renderProgress(content, e) {
  const t = e.trials;
  const ended = t.succeeded + t.failed + t.stoppedEarly + t.cancelled;
  const share = t.maxTrials ? Math.min(100, (100 * ended) / t.maxTrials) : 0;
  content.querySelector('#progress-body').innerHTML = `
    <p class="big" id="trial-counts">${escape(t.text)}</p>
    ${t.maxTrials ? `<div class="bar"><div style="width:${share}%"></div></div>` : ''}
    ${t.belowStarted ? `<p class="notice" id="below-started">${escape(t.belowStarted)}</p>` : ''}
    <table class="counts" id="counts">
      ${COUNTS.map(([key, label]) => `<tr><td>${label}</td><td class="num" data-count="${key}">${t[key]}</td></tr>`).join('')}
      <tr><td>Started</td><td class="num" data-count="started">${t.started}</td></tr>
      <tr><td>Of max</td><td class="num" data-count="maxTrials">${t.maxTrials ?? '∞'}</td></tr>
    </table>`;
}

function renderBest(content, e) {
  const box = content.querySelector('#best');
  if (!e.bestTrials.length) {
    box.innerHTML = '<p class="muted">No trial has reported a final result yet.</p>';
    return;
  }
  box.innerHTML = `
    <table class="grid" id="best-table">
      <thead><tr><th>Trial</th><th class="num">#</th><th class="num">Default metric</th><th>Status</th><th>Parameters</th></tr></thead>
      <tbody>${e.bestTrials.map((t) => `
        <tr><td><a href="#/experiments/${encodeURIComponent(e.id)}/trials/${encodeURIComponent(t.id)}">${escape(t.id)}</a></td>
          <td class="num">${t.sequence}</td><td class="num">${number(t.default)}</td><td>${status(t.status)}</td>
          <td class="params">${Object.entries(t.parameters).map(([k, v]) => `<span>${escape(k)}=${escape(value(v))}</span>`).join(' ')}</td></tr>`).join('')}
      </tbody>
    </table>`;
}

function renderLimits(content, e, id, refresh) {
  const form = content.querySelector('#limits');
  form.innerHTML = LIMITS.map(([field, , label, type]) => `
    <label>${label}
      <span class="row">
        <input name="${field}" id="limit-${field}" type="${type}" ${type === 'number' ? 'min="1" step="1"' : 'placeholder="e.g. 30m, 2h"'}
          value="${escape(e[field] ?? '')}" ${e.editable ? '' : 'disabled'}>
        <button type="button" data-field="${field}" id="save-${field}" ${e.editable ? '' : 'disabled'}>Save</button>
      </span>
    </label>`).join('');
  const message = content.querySelector('#limits-message');
  if (!e.editable) {
    message.textContent = e.open ? `A ${e.status} experiment cannot be changed.` : 'This experiment is not open: resume it to change it.';
  }
  form.querySelectorAll('button[data-field]').forEach((button) => button.addEventListener('click', async () => {
    const [field, updateType] = LIMITS.find(([f]) => f === button.dataset.field);
    const input = form.querySelector(`[name="${field}"]`);
    const raw = input.value.trim();
    // a whole number as a number; anything else as written, for the server to name what is wrong
    const params = { [field]: input.type === 'number' && Number.isSafeInteger(Number(raw)) && raw !== '' ? Number(raw) : raw };
    message.className = 'muted';
    message.textContent = 'Saving…';
    try {
      const answer = await send('PUT', `${NNI}/experiment${query({ update_type: updateType, experiment_id: id })}`, { params });
      message.textContent = `Saved: ${field} = ${raw}${answer && answer.message ? `. ${answer.message}` : ''}`;
      input.blur();
      refresh.now();
    } catch (error) {
      message.className = 'problem';
      message.textContent = error.message;
    }
  }));
}
