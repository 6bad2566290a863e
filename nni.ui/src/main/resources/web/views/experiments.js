// Every experiment in the store: status (how it ended, for one not open), platform, trials counted,
// best metric, start, duration, and what can be done with it: stop a running one (as nnictl stop),
// resume or delete a stored one (delete asks for a confirmation first; it cannot be undone).

import { get, NNI, query, send, UI } from '../api.js';
import { duration, escape, number, status, time } from '../format.js';
import { refresher, subscribe } from '../live.js';
import { problem } from './common.js';

export function show(root) {
  root.innerHTML = `
    <div class="page-head"><h1>Experiments</h1></div>
    <div id="experiments"><p class="muted">Loading…</p></div>
    <p id="experiments-message" class="muted"></p>`;
  const box = root.querySelector('#experiments');

  // the row whose delete waits for its confirmation, kept across refreshes
  const state = { confirming: null };
  const refresh = refresher(async () => {
    try {
      render(box, await get(`${UI}/experiments`), state);
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

function render(box, rows, state) {
  if (!rows.length) {
    box.innerHTML = `<p class="muted">No experiments yet. Run one:
      <code>java -jar nni-osgi.jar run config.yml</code>, or <code>nni:create config.yml</code> in the console.</p>`;
    return;
  }
  box.innerHTML = `
    <table class="grid" id="experiments-table">
      <thead><tr><th>Experiment</th><th>Name</th><th>Status</th><th>Platform</th><th class="num">Trials</th>
        <th class="num">Best</th><th>Started</th><th class="num">Duration</th><th>Actions</th></tr></thead>
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
          <td class="actions">${actions(e, state)}</td>
        </tr>`).join('')}
      </tbody>
    </table>`;
  box.querySelectorAll('button[data-action]').forEach((button) => button.addEventListener('click', () =>
    act(box, button.dataset.action, button.closest('tr').dataset.id, state)));
}

function actions(e, state) {
  // an open experiment, running or ended, is stopped (closed); one only viewed is resumed
  if (e.open && e.status !== 'VIEWED') {
    return '<button type="button" data-action="stop">Stop</button>';
  }
  if (state.confirming === e.id) {
    return `<span class="problem">Delete its folder, logs and trial outputs?</span>
      <button type="button" class="danger" data-action="confirm-delete">Delete</button>
      <button type="button" data-action="keep">Keep</button>`;
  }
  return `<button type="button" data-action="resume">Resume</button>
    ${e.open ? '' : '<button type="button" class="danger" data-action="delete">Delete…</button>'}`;
}

async function act(box, action, id, state) {
  const message = document.getElementById('experiments-message');
  const say = (text, problem) => {
    message.className = problem ? 'problem' : 'muted';
    message.textContent = text;
  };
  const path = `${UI}/experiments/${encodeURIComponent(id)}`;
  state.confirming = action === 'delete' ? id : null;
  try {
    if (action === 'stop') {
      say(`Stopping ${id}…`);
      await send('DELETE', `${NNI}/experiment${query({ experiment_id: id })}`);
      say(`Stopped ${id}.`);
    } else if (action === 'resume') {
      say(`Resuming ${id}…`);
      await send('POST', `${path}/resume`);
      say(`Resumed ${id}.`);
    } else if (action === 'confirm-delete') {
      const answer = await send('DELETE', path);
      say(`Deleted ${id} (${answer.deleted}).`);
    }
  } catch (e) {
    say(e.message, true);
  }
  render(box, await get(`${UI}/experiments`), state);
}
