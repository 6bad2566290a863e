// The page's one live stream (Server-Sent Events on the same port): what changed in which
// experiment, folded by the server. Views subscribe and re-read what they show.

const listeners = new Set();
let source = null;

function dispatch(message) {
  for (const listener of [...listeners]) {
    try {
      listener(message);
    } catch (e) {
      console.error('live listener failed', e);
    }
  }
}

function indicator(connected) {
  const dot = document.getElementById('live');
  if (dot) {
    dot.classList.toggle('off', !connected);
    dot.title = connected ? 'live updates: connected' : 'live updates: reconnecting';
  }
}

export function connect() {
  if (source) {
    return;
  }
  source = new EventSource('/api/v1/nni-ui/events');
  // after a (re)connection whatever happened meanwhile is unknown: every view reads everything again
  source.addEventListener('hello', () => {
    indicator(true);
    dispatch({ type: 'reset' });
  });
  source.addEventListener('experiment', (event) => dispatch({ type: 'experiment', ...JSON.parse(event.data) }));
  source.addEventListener('platforms', () => dispatch({ type: 'platforms' }));
  source.addEventListener('error', () => indicator(false));
}

/** Subscribes to live messages; returns the unsubscribe function. */
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * A refresh that runs at most once per `interval` ms however often it is asked for: one run now,
 * and at most one more once the interval has passed and the run in flight has ended.
 */
export function refresher(work, interval = 1000) {
  let running = false;
  let again = false;
  let last = 0;
  let timer = null;
  let stopped = false;
  async function run() {
    timer = null;
    if (stopped) {
      return;
    }
    running = true;
    last = Date.now();
    try {
      await work();
    } catch (e) {
      console.error(e);
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  }
  function schedule() {
    if (stopped) {
      return;
    }
    if (running) {
      again = true;
      return;
    }
    if (timer === null) {
      timer = setTimeout(run, Math.max(0, last + interval - Date.now()));
    }
  }
  /** For what a person just did: runs without waiting for the interval. */
  schedule.now = () => {
    last = 0;
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    schedule();
  };
  schedule.stop = () => {
    stopped = true;
    if (timer !== null) {
      clearTimeout(timer);
    }
  };
  return schedule;
}

/** @return whether a live message concerns experiment `id` with one of `kinds` (a reset concerns everyone). */
export function concerns(message, id, kinds) {
  if (message.type === 'reset') {
    return true;
  }
  return message.type === 'experiment' && message.experiment === id
    && (!kinds || message.kinds.some((kind) => kinds.includes(kind)));
}
