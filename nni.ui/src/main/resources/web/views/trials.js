// The trial table, paged, sorted and filtered by the server: a column per parameter and the default
// metric, duration, platform and machine, and why a trial waits. Trials ticked (2 to 10, kept across
// pages) are compared side by side.

import { get, query, UI } from '../api.js';
import { duration, escape, number, status, value } from '../format.js';
import { concerns, refresher, subscribe } from '../live.js';
import { experimentPage, problem } from './common.js';

const STATUSES = ['WAITING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'USER_CANCELED', 'SYS_CANCELED', 'EARLY_STOPPED', 'UNKNOWN'];
const PAGE_SIZES = [20, 50, 100, 200];
const MAX_COMPARED = 10;

export function show(root, id) {
  const content = experimentPage(root, id, '/trials');
  const state = { offset: 0, limit: 50, sort: 'sequence', order: 'asc', status: '', q: '' };
  const picked = new Set();
  content.innerHTML = `
    <div class="toolbar">
      <label>Status <select id="status-filter"><option value="">all</option>
        ${STATUSES.map((s) => `<option value="${s}">${s}</option>`).join('')}</select></label>
      <label>Search <input id="search" type="search" placeholder="trial id or parameter, e.g. lr=0.01"></label>
      <label>Rows <select id="page-size">${PAGE_SIZES.map((n) => `<option ${n === state.limit ? 'selected' : ''}>${n}</option>`).join('')}</select></label>
      <button type="button" id="compare" disabled title="tick 2 to ${MAX_COMPARED} trials">Compare</button>
      <span class="spacer"></span>
      <span id="page-info" class="muted"></span>
      <button type="button" id="previous">‹ Previous</button>
      <button type="button" id="next">Next ›</button>
    </div>
    <div id="table" class="scroll"><p class="muted">Loading…</p></div>`;
  const table = content.querySelector('#table');
  let page = null;

  const refresh = refresher(async () => {
    try {
      page = await get(`${UI}/experiments/${encodeURIComponent(id)}/trials${query(state)}`);
      render();
    } catch (e) {
      problem(table, e);
    }
  }, 1000);

  function render() {
    const names = page.parameters;
    const columns = [
      ['id', 'Trial'], ['sequence', '#'], ['status', 'Status'],
      ...names.map((n) => [`param.${n}`, n]),
      ['default', 'Default metric'], ['duration', 'Duration'], ['machine', 'Platform / machine'], [null, 'Why it waits / message'],
    ];
    table.innerHTML = `
      <table class="grid" id="trials-table" data-total="${page.total}">
        <thead><tr><th class="pick"></th>${columns.map(([key, label]) => key
          ? `<th data-sort="${escape(key)}" class="sortable ${key === state.sort ? 'sorted ' + state.order : ''}">${escape(label)}</th>`
          : `<th>${escape(label)}</th>`).join('')}</tr></thead>
        <tbody>${page.rows.map((t) => `
          <tr data-trial="${escape(t.id)}" data-status="${escape(t.status)}">
            <td class="pick"><input type="checkbox" data-pick="${escape(t.id)}" ${picked.has(t.id) ? 'checked' : ''}></td>
            <td><a href="#/experiments/${encodeURIComponent(id)}/trials/${encodeURIComponent(t.id)}">${escape(t.id)}</a></td>
            <td class="num">${t.sequence}</td>
            <td>${status(t.status)}</td>
            ${names.map((n) => `<td class="num">${escape(value(t.parameters[n]))}</td>`).join('')}
            <td class="num" data-metric>${t.default !== null ? number(t.default)
              : t.latest !== null ? `<span class="muted" title="latest intermediate result">${number(t.latest)}…</span>` : '–'}</td>
            <td class="num">${duration(t.durationMillis)}</td>
            <td>${escape(t.platform)}${t.machine ? ' · ' + escape(t.machine) : ''}</td>
            <td class="message">${escape(t.message ?? '')}</td>
          </tr>`).join('')}
        </tbody>
      </table>
      ${page.rows.length ? '' : '<p class="muted">No trial matches.</p>'}`;
    const last = Math.min(page.total, state.offset + page.rows.length);
    content.querySelector('#page-info').textContent = page.total
      ? `${state.offset + 1}–${last} of ${page.total}${page.total !== page.all ? ` (${page.all} in all)` : ''}` : `0 of ${page.all}`;
    content.querySelector('#previous').disabled = state.offset === 0;
    content.querySelector('#next').disabled = last >= page.total;
    table.querySelectorAll('input[data-pick]').forEach((box) => box.addEventListener('change', () => {
      if (box.checked) {
        picked.add(box.dataset.pick);
      } else {
        picked.delete(box.dataset.pick);
      }
      showPicked();
    }));
    showPicked();
    table.querySelectorAll('th[data-sort]').forEach((th) => th.addEventListener('click', () => {
      const key = th.dataset.sort;
      state.order = state.sort === key && state.order === 'asc' ? 'desc' : 'asc';
      state.sort = key;
      state.offset = 0;
      refresh.now();
    }));
  }

  function showPicked() {
    const compare = content.querySelector('#compare');
    compare.textContent = picked.size ? `Compare ${picked.size}` : 'Compare';
    compare.disabled = picked.size < 2 || picked.size > MAX_COMPARED;
  }

  content.querySelector('#compare').addEventListener('click', () => {
    location.hash = `#/experiments/${encodeURIComponent(id)}/compare/${[...picked].map(encodeURIComponent).join(',')}`;
  });
  content.querySelector('#status-filter').addEventListener('change', (event) => {
    state.status = event.target.value;
    state.offset = 0;
    refresh.now();
  });
  let typing = null;
  content.querySelector('#search').addEventListener('input', (event) => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      state.q = event.target.value.trim();
      state.offset = 0;
      refresh.now();
    }, 250);
  });
  content.querySelector('#page-size').addEventListener('change', (event) => {
    state.limit = Number(event.target.value);
    state.offset = 0;
    refresh.now();
  });
  content.querySelector('#previous').addEventListener('click', () => {
    state.offset = Math.max(0, state.offset - state.limit);
    refresh.now();
  });
  content.querySelector('#next').addEventListener('click', () => {
    state.offset += state.limit;
    refresh.now();
  });

  refresh();
  const unsubscribe = subscribe((message) => concerns(message, id, ['TRIAL', 'METRICS', 'CONFIG', 'OPENED', 'CLOSED']) && refresh());
  return () => {
    unsubscribe();
    refresh.stop();
    clearTimeout(typing);
  };
}
