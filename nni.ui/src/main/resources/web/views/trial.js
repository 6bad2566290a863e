// One trial: parameters, intermediate results chart, final result, its stdout / stderr / trial.log,
// and a cancel button (NNI's REST DELETE /trial-jobs/{id}).

import { get, NNI, query, send, UI } from '../api.js';
import { chart } from '../chart.js';
import { duration, escape, number, status, time, value } from '../format.js';
import { concerns, refresher, subscribe } from '../live.js';
import { experimentPage, problem } from './common.js';


const TERMINAL = ['SUCCEEDED', 'FAILED', 'USER_CANCELED', 'SYS_CANCELED', 'EARLY_STOPPED'];
export function show(root, id, trialId) {
  const content = experimentPage(root, id, '/trials');
  content.innerHTML = `
    <div class="page-sub"><h2>Trial <span id="trial-id">${escape(trialId)}</span> <span id="trial-status"></span></h2>
      <span class="spacer"></span>
      <span id="cancel-box"></span></div>
    <div class="cards">
      <section class="card"><h2>Trial</h2><div id="trial-facts" class="muted">Loading…</div></section>
      <section class="card"><h2>Parameters</h2><div id="trial-parameters"></div></section>
      <section class="card wide"><h2>Intermediate results <span id="intermediate-note" class="muted"></span></h2>
        <div id="intermediate-chart" class="chart"></div></section>
      <section class="card wide"><h2>Output</h2>
        <nav class="tabs small" id="log-tabs"></nav>
        <p id="log-note" class="muted"></p>
        <pre id="log" class="log"></pre></section>
    </div>`;
  const base = `${UI}/experiments/${encodeURIComponent(id)}/trials/${encodeURIComponent(trialId)}`;
  const intermediate = chart(content.querySelector('#intermediate-chart'));
  let file = 'stdout';
  let confirming = false;

  const refresh = refresher(async () => {
    try {
      const trial = await get(base);
      render(trial);
    } catch (e) {
      problem(content.querySelector('#trial-facts'), e);
    }
  }, 1000);
  const refreshLog = refresher(async () => {
    const note = content.querySelector('#log-note');
    const log = content.querySelector('#log');
    try {
      const tail = await get(`${base}/files/${encodeURIComponent(file)}`);
      log.dataset.file = file;
      log.textContent = tail.exists ? tail.text : '';
      note.textContent = !tail.exists ? `The trial has no ${file} (yet).`
        : tail.truncated ? `The last ${tail.text.length} characters of ${tail.size} bytes.` : `${tail.size} bytes.`;
    } catch (e) {
      note.textContent = e.message;
    }
  }, 1000);

  function render(trial) {
    content.querySelector('#trial-status').innerHTML = status(trial.status);
    content.querySelector('#trial-facts').innerHTML = `
      <dl class="facts">
        <dt>Sequence</dt><dd>${trial.sequence}</dd>
        <dt>Status</dt><dd>${status(trial.status)}</dd>
        ${trial.message ? `<dt>${trial.status === 'WAITING' ? 'Why it waits' : 'Message'}</dt><dd id="trial-message">${escape(trial.message)}</dd>` : ''}
        <dt>Final result</dt><dd id="trial-final">${number(trial.default)}</dd>
        <dt>Submitted</dt><dd>${time(trial.submitTime)}</dd>
        <dt>Started</dt><dd>${time(trial.startTime)}</dd>
        <dt>Ended</dt><dd>${time(trial.endTime)}</dd>
        <dt>Duration</dt><dd>${duration(trial.durationMillis)}</dd>
        <dt>Platform</dt><dd id="trial-machine">${escape(trial.platform)}${trial.machine ? ' · ' + escape(trial.machine) : ''}</dd>
        ${Object.entries(trial.attributes || {}).map(([k, v]) => `<dt>${escape(k)}</dt><dd>${escape(v)}</dd>`).join('')}
        <dt>Folder</dt><dd class="path">${escape(trial.workingDirectory)}</dd>
      </dl>`;
    const parameters = trial.parameters && typeof trial.parameters === 'object' ? Object.entries(trial.parameters) : [];
    content.querySelector('#trial-parameters').innerHTML = `
      <table class="grid" id="parameters-table"><tbody>${parameters.map(([k, v]) =>
        `<tr><th>${escape(k)}</th><td class="num">${escape(value(v))}</td></tr>`).join('')}</tbody></table>`;
    const series = trial.intermediate;
    content.querySelector('#intermediate-note').textContent = series.total > series.points.length
      ? `(${series.points.length} of ${series.total} points shown: the lowest and highest of each stretch)`
      : series.total ? `(${series.total})`
        : TERMINAL.includes(trial.status) ? '(none: the trial reported no intermediate result)' : '(none yet)';
    content.querySelector('#intermediate-chart').hidden = series.total === 0;
    const box = content.querySelector('#intermediate-chart');
    box.dataset.points = series.points.length;
    intermediate.set({
      animation: false,
      grid: { left: 60, right: 20, top: 20, bottom: 40 },
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'value', name: 'report', nameLocation: 'middle', nameGap: 26, minInterval: 1 },
      yAxis: { type: 'value', scale: true },
      series: [{ type: 'line', name: 'intermediate', showSymbol: series.points.length < 60,
        data: series.points.map(([x, y]) => [x, y === 'NaN' ? null : y]) }],
    });
    const tabs = content.querySelector('#log-tabs');
    if (!tabs.children.length) {
      tabs.innerHTML = trial.files.map((name) => `<a href="javascript:void 0" data-file="${escape(name)}" id="log-${escape(name.replace('.', '-'))}">${escape(name)}</a>`).join('');
      tabs.querySelectorAll('a').forEach((a) => a.addEventListener('click', () => {
        file = a.dataset.file;
        tabs.querySelectorAll('a').forEach((x) => x.classList.toggle('current', x === a));
        refreshLog.now();
      }));
      tabs.querySelector(`[data-file="${file}"]`).classList.add('current');
    }
    renderCancel(trial);
  }

  function renderCancel(trial) {
    const box = content.querySelector('#cancel-box');
    if (!trial.cancellable) {
      box.innerHTML = '';
      confirming = false;
      return;
    }
    if (confirming) {
      return;
    }
    box.innerHTML = '<button type="button" id="cancel" class="danger">Cancel trial</button>';
    box.querySelector('#cancel').addEventListener('click', () => {
      confirming = true;
      box.innerHTML = `<span>Cancel trial ${escape(trialId)}? Its processes are killed.</span>
        <button type="button" id="cancel-confirm" class="danger">Yes, cancel it</button>
        <button type="button" id="cancel-keep">No</button>`;
      box.querySelector('#cancel-keep').addEventListener('click', () => {
        confirming = false;
        renderCancel(trial);
      });
      box.querySelector('#cancel-confirm').addEventListener('click', async () => {
        try {
          await send('DELETE', `${NNI}/trial-jobs/${encodeURIComponent(trialId)}${query({ experiment_id: id })}`);
          box.innerHTML = '<span class="muted" id="cancel-sent">Cancelling…</span>';
        } catch (e) {
          box.innerHTML = `<span class="problem">${escape(e.message)}</span>`;
        }
        confirming = false;
        refresh.now();
      });
    });
  }

  refresh();
  refreshLog();
  const unsubscribe = subscribe((message) => {
    if (concerns(message, id, ['TRIAL', 'METRICS', 'CLOSED', 'OPENED'])
        && (message.type === 'reset' || message.trials === null || message.trials.length === 0 || message.trials.includes(trialId))) {
      refresh();
      refreshLog();
    }
  });
  return () => {
    unsubscribe();
    refresh.stop();
    refreshLog.stop();
    intermediate.dispose();
  };
}
