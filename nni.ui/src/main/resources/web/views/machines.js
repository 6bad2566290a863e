// The machines each running experiment's platform sessions use: every GPU with its utilisation,
// memory and the trials placed on it, as the session last read nvidia-smi, and each session's
// state. GPUs change without an event, so the page reads again every few seconds while shown.

import { get, UI } from '../api.js';
import { escape, time } from '../format.js';
import { refresher, subscribe } from '../live.js';
import { problem } from './common.js';

const EVERY_MILLIS = 3000;

export function show(root) {
  root.innerHTML = `
    <div class="page-head"><h1>Machines</h1></div>
    <div id="machines"><p class="muted">Loading…</p></div>`;
  const box = root.querySelector('#machines');
  const refresh = refresher(async () => {
    try {
      render(box, await get(`${UI}/machines`));
    } catch (e) {
      problem(box, e);
    }
  }, 1000);
  refresh();
  const timer = setInterval(refresh, EVERY_MILLIS);
  const unsubscribe = subscribe((message) => message.type === 'reset' && refresh());
  return () => {
    clearInterval(timer);
    unsubscribe();
    refresh.stop();
  };
}

function render(box, answer) {
  if (!answer.sessions.length) {
    box.innerHTML = '<p class="muted">No experiment is running: no platform session is open.</p>';
    return;
  }
  box.innerHTML = answer.sessions.map((s) => `
    <section class="card wide machine-session" data-experiment="${escape(s.experiment)}" data-member="${s.member}">
      <h2><a href="#/experiments/${encodeURIComponent(s.experiment)}">${escape(s.experiment)}</a>
        ${s.experimentName ? `<span class="muted">${escape(s.experimentName)}</span>` : ''}
        · ${escape(s.platform)}${s.member ? ` <span class="muted">trainingService[${s.member}]</span>` : ''}</h2>
      <p data-session-state class="${s.state === 'away' ? 'warning' : 'muted'}">${escape(s.state)}${s.detail ? `: ${escape(s.detail)}` : ''}</p>
      ${s.machines.length ? s.machines.map((m) => machine(s, m)).join('')
        : '<p class="muted">This platform shows nothing of its machines.</p>'}
    </section>`).join('');
}

function machine(session, m) {
  const read = m.readAt ? `read ${escape(time(m.readAt))}` : 'not read yet';
  const gpus = m.gpus.length ? `
      <table class="grid gpus" data-machine="${escape(m.name)}">
        <thead><tr><th class="num">GPU</th><th>Utilisation</th><th>Memory</th><th>Trials</th></tr></thead>
        <tbody>${m.gpus.map((g) => `
          <tr data-gpu="${g.index}">
            <td class="num">${g.index}</td>
            <td data-utilization>${g.utilization === null ? '–' : `${g.utilization} %`}
              ${g.utilization === null ? '' : `<div class="bar"><div style="width:${Math.min(100, g.utilization)}%"></div></div>`}</td>
            <td data-memory>${g.memoryTotalMiB === null ? '–' : `${g.memoryUsedMiB} / ${g.memoryTotalMiB} MiB`}</td>
            <td data-trials>${g.trials.map((t) => `<a href="#/experiments/${encodeURIComponent(session.experiment)}/trials/${encodeURIComponent(t)}">${escape(t)}</a>`).join(' ')}</td>
          </tr>`).join('')}</tbody>
      </table>` : `<p class="muted">${m.readAt ? 'No GPU.' : ''}</p>`;
  return `
      <h3>${escape(m.name)} <span class="muted">${read}</span></h3>
      ${m.problem ? `<p class="problem" data-machine-problem>${escape(m.problem)}</p>` : ''}
      ${gpus}`;
}
